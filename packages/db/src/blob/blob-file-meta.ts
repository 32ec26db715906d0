/**
 * Blob files in the MANIFEST (RocksDB's `db/blob/blob_file_addition.cc`,
 * `blob_file_garbage.cc`, and the blob part of `db/version_builder.cc`).
 *
 * ```
 * 400 BlobFileAddition := varint64 file number ‖ varint64 total blob count
 *                         ‖ varint64 total blob bytes ‖ varstring checksum method
 *                         ‖ varstring checksum value ‖ { varint32 tag ‖ varstring }* ‖ varint32 0
 * 401 BlobFileGarbage  := varint64 file number ‖ varint64 garbage blob count
 *                         ‖ varint64 garbage blob bytes ‖ { varint32 tag ‖ varstring }* ‖ varint32 0
 * ```
 * Custom fields: tag 0 ends them; a tag with bit 64 set must be understood (Corruption),
 * others are skipped. Tags 8194/8195 are the same records under their old, ignorable numbers
 * (decoded the same way, not length-prefixed, as RocksDB does).
 *
 * Which blob files a version keeps (RocksDB's VersionBuilder::SaveBlobFilesTo): a table links
 * to the blob file named by its `oldestBlobFileNumber`. Every blob file numbered below the
 * oldest linked one is dropped; of the rest, one that no table links to and whose garbage
 * covers all its blobs is dropped. Garbage adds up over the edits that report it.
 *
 * Example: `90 03 0a 01 26 00 00 00` is BlobFileAddition (tag 400 = `90 03`) of file 10,
 * 1 blob of 38 bytes (key + value + 32-byte record header), no checksum, no custom fields.
 */
import { type ByteWriter, type Decoder, ShaleError } from "@shale/base";

/** A blob file as the version knows it. */
export interface BlobFileMeta {
  readonly number: number;
  readonly totalBlobCount: number;
  readonly totalBlobBytes: number;
  /** Default: "" (none). */
  readonly checksumMethod: string;
  readonly checksumValue: Uint8Array;
  readonly garbageBlobCount: number;
  readonly garbageBlobBytes: number;
}

export interface BlobFileAddition {
  number: number;
  totalBlobCount: number;
  totalBlobBytes: number;
  checksumMethod: string;
  checksumValue: Uint8Array;
}

export interface BlobFileGarbage {
  number: number;
  garbageBlobCount: number;
  garbageBlobBytes: number;
}

const FORWARD_INCOMPATIBLE = 1 << 6;

export function encodeBlobFileAddition(w: ByteWriter, a: BlobFileAddition): void {
  w.varint64(a.number).varint64(a.totalBlobCount).varint64(a.totalBlobBytes);
  w.lengthPrefixed(new TextEncoder().encode(a.checksumMethod)).lengthPrefixed(a.checksumValue);
  w.varint32(0);
}

export function encodeBlobFileGarbage(w: ByteWriter, g: BlobFileGarbage): void {
  w.varint64(g.number).varint64(g.garbageBlobCount).varint64(g.garbageBlobBytes).varint32(0);
}

function skipCustomFields(d: Decoder, what: string): void {
  for (;;) {
    const at = d.pos;
    const tag = d.readVarint32();
    if (tag === 0) return;
    if ((tag & FORWARD_INCOMPATIBLE) !== 0)
      throw ShaleError.corruption(
        `${what}: forward incompatible custom field ${tag}`,
        d.file,
        d.fileOffset + at,
      );
    d.readLengthPrefixed();
  }
}

export function decodeBlobFileAddition(d: Decoder): BlobFileAddition {
  const number = d.readVarint64();
  const totalBlobCount = d.readVarint64();
  const totalBlobBytes = d.readVarint64();
  const checksumMethod = new TextDecoder().decode(d.readLengthPrefixed());
  const checksumValue = d.readLengthPrefixed().slice();
  skipCustomFields(d, "blob file addition");
  return { number, totalBlobCount, totalBlobBytes, checksumMethod, checksumValue };
}

export function decodeBlobFileGarbage(d: Decoder): BlobFileGarbage {
  const number = d.readVarint64();
  const garbageBlobCount = d.readVarint64();
  const garbageBlobBytes = d.readVarint64();
  skipCustomFields(d, "blob file garbage");
  return { number, garbageBlobCount, garbageBlobBytes };
}

/**
 * The blob files after an edit: `base` with `additions` added and `garbage` counted, then
 * trimmed by RocksDB's rule (see the file comment) against the tables' `oldestBlobFileNumber`
 * (`linked`: every table of the new version). Throws `fail(message)` for garbage of an
 * unknown file, a file added twice, or garbage beyond a file's total.
 */
export function applyBlobFileEdits(
  base: ReadonlyMap<number, BlobFileMeta>,
  additions: readonly BlobFileAddition[],
  garbage: readonly BlobFileGarbage[],
  linked: Iterable<{ readonly oldestBlobFileNumber?: number | undefined }>,
  fail: (message: string) => Error,
): ReadonlyMap<number, BlobFileMeta> {
  if (additions.length === 0 && garbage.length === 0 && base.size === 0) return base;
  const files = new Map(base);
  for (const a of additions) {
    if (files.has(a.number)) throw fail(`blob file ${a.number} added twice`);
    files.set(a.number, { ...a, garbageBlobCount: 0, garbageBlobBytes: 0 });
  }
  for (const g of garbage) {
    const f = files.get(g.number);
    if (f === undefined) throw fail(`garbage reported for unknown blob file ${g.number}`);
    const count = f.garbageBlobCount + g.garbageBlobCount;
    const bytes = f.garbageBlobBytes + g.garbageBlobBytes;
    if (count > f.totalBlobCount || bytes > f.totalBlobBytes)
      throw fail(`blob file ${g.number} has more garbage than blobs`);
    files.set(g.number, { ...f, garbageBlobCount: count, garbageBlobBytes: bytes });
  }
  const linkedFiles = new Set<number>();
  let oldestLinked = Number.POSITIVE_INFINITY;
  for (const t of linked) {
    const n = t.oldestBlobFileNumber;
    if (n === undefined || n === 0) continue;
    linkedFiles.add(n);
    if (files.has(n) && n < oldestLinked) oldestLinked = n;
  }
  for (const f of [...files.values()]) {
    const unlinked = !linkedFiles.has(f.number);
    if (f.number < oldestLinked || (unlinked && f.garbageBlobCount >= f.totalBlobCount))
      files.delete(f.number);
  }
  return files;
}
