/**
 * `ingestExternalFile(paths, options?)` — RocksDB's IngestExternalFile: bulk loading of
 * external SST files (SstFileWriter's, or RocksDB's) into one column family, all files or
 * none, without passing their entries through the memtable.
 *
 * Steps (RocksDB's ExternalSstFileIngestionJob):
 * 1. Check the options and every file (inspect-file.ts); the files' ranges must not overlap
 *    each other (InvalidArgument naming both files; RocksDB 7.8.3 would put overlapping files
 *    at L0 instead).
 * 2. While the memtable or an immutable memtable holds a key or range deletion in a file's
 *    range, flush the family and wait (`allowBlockingFlush` false: InvalidArgument).
 * 3. From here synchronously (no write can come in between, as RocksDB stops writes):
 *    a. pick each file's level and sequence number (pick-level.ts; a file needing a global
 *       seqno with `allowGlobalSeqNo` false: InvalidArgument). Files numbered consume one
 *       sequence number each, as RocksDB's;
 *    b. take new file numbers and record them in the MANIFEST (an edit of its counters), so
 *       that a crash before step e leaves files the next open deletes as its own;
 *    c. copy (or hard-link, `moveFiles`) each file into the database directory as
 *       `<number>.sst`, writing the global seqno into a copy when asked or needed;
 *    d. sync each file and the directory, and the WALs: a power cut after step e must not
 *       keep the files and lose writes acknowledged before them (the recovered state stays
 *       a prefix of the acknowledged writes, as after a flush);
 *    e. one synced MANIFEST edit adds every file, with the last sequence number (one edit
 *       per family in an atomic group when several families ingest together,
 *       `ingestExternalFiles`): the files are in, all of them, or (if the edit never
 *       reached the disk) none of them.
 *    f. with `moveFiles`, the caller's names are removed.
 *    A failure before e removes the files made; a failure of e itself leaves the outcome
 *    unknown (the edit may be on disk), so nothing is removed and the database stops taking
 *    writes, as for any MANIFEST failure.
 *
 * The global seqno reaches readers through the MANIFEST: each file's smallest and largest
 * sequence numbers are it (format/external-file.ts in @shale/sstable, and
 * docs/formats/external-sst-files.md).
 *
 * Threading: the database's thread.
 */
import { type FileSystem, isShaleError, putTrailer, ShaleError, TRAILER_SIZE } from "@shale/base";
import { tableFileName } from "../../core/filenames.js";
import { rangesOverlap } from "../../version/key-range.js";
import { type FileMetaData, VersionEdit } from "../../version/version-edit.js";
import {
  type IngestExternalFileOptions,
  type ResolvedIngestOptions,
  resolveIngestOptions,
} from "./ingest-options.js";
import type { IngestTarget } from "./ingest-target.js";
import { type ExternalFile, inspectExternalFile } from "./inspect-file.js";
import { type Placement, pickLevel } from "./pick-level.js";
import { placeFile } from "./place-file.js";

/** How many times the memtable is flushed for one ingestion before it gives up (Busy). */
const MAX_FLUSHES = 16;

function pathList(paths: unknown): string[] {
  const list = typeof paths === "string" ? [paths] : paths;
  if (!Array.isArray(list)) throw new TypeError("paths must be a string or an array of strings");
  for (const p of list) {
    if (typeof p !== "string" || p.length === 0)
      throw new TypeError("paths must be non-empty strings");
  }
  if (list.length === 0) throw ShaleError.invalidArgument("ingestExternalFile: no files given");
  return list as string[];
}

/** InvalidArgument naming two files whose user-key ranges overlap, if any do. */
function checkApart(target: IngestTarget, files: readonly ExternalFile[]): void {
  const ucmp = target.icmp.user;
  const sorted = [...files].sort((a, b) => ucmp.compare(a.range.lo, b.range.lo));
  for (let i = 0; i + 1 < sorted.length; i++) {
    const a = sorted[i]!;
    const b = sorted[i + 1]!;
    if (rangesOverlap(ucmp, a.range, b.range)) {
      throw ShaleError.invalidArgument(
        `external files ${a.path} and ${b.path} overlap: the files of one ingestion must not`,
      );
    }
  }
}

/** One family's part of an ingestion (RocksDB's IngestExternalFileArg, its family resolved). */
export interface IngestRequest {
  readonly target: IngestTarget;
  readonly paths: unknown;
  readonly options?: unknown;
}

interface Job {
  readonly target: IngestTarget;
  readonly files: readonly ExternalFile[];
  readonly opts: ResolvedIngestOptions;
}

/** `ingestExternalFile` of one family. */
export function ingestExternalFile(
  target: IngestTarget,
  paths: unknown,
  options?: IngestExternalFileOptions,
): Promise<void> {
  return ingestExternalFiles([{ target, paths, options }]);
}

/**
 * RocksDB's IngestExternalFiles: the files of several families (each family once) in one
 * ingestion — all of them or none, one MANIFEST atomic group when there are several
 * families. Each family's files are checked and placed as for one family.
 */
export async function ingestExternalFiles(requests: readonly IngestRequest[]): Promise<void> {
  if (requests.length === 0)
    throw ShaleError.invalidArgument("ingestExternalFiles: nothing to ingest");
  const ids = new Set<number>();
  for (const r of requests) {
    if (ids.has(r.target.id))
      throw ShaleError.invalidArgument(
        `ingestExternalFiles: column family ${r.target.id} is named twice (one entry per family)`,
      );
    ids.add(r.target.id);
  }
  const jobs: Job[] = requests.map((r) => {
    const list = pathList(r.paths);
    const opts = resolveIngestOptions(r.options);
    r.target.checkWritable();
    r.target.takeFinished();
    if (opts.ingestBehind)
      throw ShaleError.notSupported(
        "ingestBehind: RocksDB allows it only in a database opened with allow_ingest_behind " +
          "(the bottom level kept for ingested files), which shale does not offer",
      );
    return {
      target: r.target,
      files: list.map((p) => inspectExternalFile(r.target.fs, p, r.target, opts)),
      opts,
    };
  });
  for (const job of jobs) checkApart(job.target, job.files);
  for (let flushes = 0; ; flushes++) {
    const overlapping = jobs.filter((j) =>
      j.files.some((f) => j.target.memtablesHaveDataIn(f.range)),
    );
    if (overlapping.length === 0) break;
    for (const job of overlapping) {
      if (!job.opts.allowBlockingFlush) {
        const f = job.files.find((x) => job.target.memtablesHaveDataIn(x.range))!;
        throw ShaleError.invalidArgument(
          `external file ${f.path} overlaps the memtable, which allowBlockingFlush false does not let flush`,
        );
      }
    }
    if (flushes === MAX_FLUSHES)
      throw ShaleError.busy(
        `ingestExternalFile: writes kept coming into the files' ranges through ${MAX_FLUSHES} flushes`,
      );
    for (const job of overlapping) await job.target.flush();
    for (const job of jobs) {
      job.target.checkWritable();
      job.target.takeFinished();
    }
  }
  install(jobs);
}

/** Step 3 of the file comment: synchronous. */
function install(jobs: readonly Job[]): void {
  const first = jobs[0]!.target;
  let lastSeq = first.lastSequence();
  const placements: Placement[][] = [];
  for (const { target, files, opts } of jobs) {
    const version = target.current();
    const force = opts.snapshotConsistency && target.snapshotCount() > 0;
    const placed: Placement[] = [];
    for (const f of files) {
      const p = pickLevel(version, target, f.range, lastSeq, force);
      if (p.seqno !== f.originalSeqno && !opts.allowGlobalSeqNo) {
        throw ShaleError.invalidArgument(
          `external file ${f.path} needs a global sequence number (it overlaps data in the ` +
            `family${force ? " or a snapshot is held" : ""}), which allowGlobalSeqNo false forbids`,
        );
      }
      if (p.seqno !== 0 && f.globalSeqnoOffset < 0) {
        throw ShaleError.invalidArgument(
          `external file ${f.path} needs a global sequence number and has no global seqno field`,
        );
      }
      if (p.seqno > lastSeq) lastSeq = p.seqno;
      placed.push(p);
    }
    placements.push(placed);
  }
  const fs = first.fs;
  const numbers = jobs.map((j) => j.files.map(() => first.newFileNumber()));
  first.recordFileNumbers();
  const made: string[] = [];
  const linked: string[] = [];
  const edits: { target: IngestTarget; edit: VersionEdit }[] = [];
  try {
    jobs.forEach(({ target, files, opts }, j) => {
      const edit = new VersionEdit();
      files.forEach((f, i) => {
        const p = placements[j]![i]!;
        const number = numbers[j]![i]!;
        const to = tableFileName(target.dir, number);
        const writeSeqno =
          f.originalSeqno !== p.seqno && (opts.writeGlobalSeqno || f.originalSeqno !== 0);
        made.push(to);
        const how = placeFile(fs, f, to, opts.moveFiles && !writeSeqno, writeSeqno ? p.seqno : -1);
        if (how === "linked") linked.push(f.path);
        edit.addFile(p.level, fileMeta(f, number, p.seqno));
      });
      edits.push({ target, edit });
    });
    fs.syncDir(first.dir);
    first.syncWal();
  } catch (e) {
    removeQuietly(fs, made);
    throw e;
  }
  if (lastSeq > first.lastSequence()) first.setLastSequence(lastSeq);
  first.applyEdits(edits);
  for (const path of linked) removeQuietly(fs, [path]);
}

/** The MANIFEST's entry for a file placed at `seqno`: its keys at sequence 0 take it. */
function fileMeta(f: ExternalFile, number: number, seqno: number): FileMetaData {
  const now = Math.floor(Date.now() / 1000);
  return {
    number,
    size: f.size,
    smallest: withSeqno(f.smallest, seqno),
    largest: withSeqno(f.largest, seqno),
    smallestSeq: seqno,
    largestSeq: seqno,
    oldestAncesterTime: now,
    fileCreationTime: now,
  };
}

/** `ikey` with sequence `seqno` if it has 0 (a range end's sentinel keeps its own). */
function withSeqno(ikey: Uint8Array, seqno: number): Uint8Array {
  const t = ikey.length - TRAILER_SIZE;
  const out = ikey.slice();
  let zero = true;
  for (let i = 1; i < TRAILER_SIZE; i++) if (ikey[t + i] !== 0) zero = false;
  if (zero) putTrailer(out, t, seqno, ikey[t]!);
  return out;
}

function removeQuietly(fs: FileSystem, paths: readonly string[]): void {
  for (const p of paths) {
    try {
      if (fs.exists(p)) fs.remove(p);
    } catch (e) {
      // Left for the next open, which deletes tables numbered below the MANIFEST's counter.
      if (!isShaleError(e)) throw e;
    }
  }
}
