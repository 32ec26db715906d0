/**
 * Which database a change feed belongs to. A feed's identity is the IDENTITY file (a UUID)
 * of the database that first published it; a follower records the identity it follows in
 * its directory, and keeps it when it is promoted and publishes on:
 *
 * ```
 * <follower dir>/REPLICA     {"stream":"orders","source":"6f1c...-..."}   (JSON, one line)
 * ```
 *
 * The file is written once, before the follower applies anything (temp file, fsync,
 * rename, directory fsync). shale ignores files it does not name, so the directory stays a
 * plain database (RocksDB ignores it too).
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ShaleError } from "@shale/base";

export const REPLICA_FILE = "REPLICA";

/** What a follower's directory records about its source. */
export interface ReplicaRecord {
  readonly stream: string;
  /** The identity of the feed it follows. */
  readonly source: string;
}

/** The IDENTITY of the database in `dir` (trimmed). */
export function databaseIdentity(dir: string): string {
  const id = readFileSync(join(dir, "IDENTITY"), "utf8").trim();
  if (id === "") throw ShaleError.corruption("IDENTITY is empty", join(dir, "IDENTITY"));
  return id;
}

/** The replica record of `dir`, or undefined when it is not a follower's directory. */
export function readReplicaRecord(dir: string): ReplicaRecord | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, REPLICA_FILE), "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw ShaleError.ioError("cannot read the replica record", join(dir, REPLICA_FILE), e);
  }
  try {
    const r = JSON.parse(text) as ReplicaRecord;
    if (typeof r.stream === "string" && typeof r.source === "string") return r;
  } catch {
    // reported below
  }
  throw ShaleError.corruption(
    "the replica record is not what shale wrote",
    join(dir, REPLICA_FILE),
  );
}

/** Writes the replica record of `dir` durably (see the file comment). */
export function writeReplicaRecord(dir: string, record: ReplicaRecord): void {
  const path = join(dir, REPLICA_FILE);
  const temp = `${path}.tmp`;
  writeFileSync(temp, `${JSON.stringify(record)}\n`);
  const fd = openSync(temp, "r+");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  const dirFd = openSync(dir, "r");
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

/** The identity of the feed `dir`'s database publishes: its source's, or its own. */
export function feedIdentity(dir: string): string {
  return readReplicaRecord(dir)?.source ?? databaseIdentity(dir);
}
