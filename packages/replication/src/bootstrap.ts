/**
 * Checkpoints in JetStream's object store, for followers that start where the stream no
 * longer holds the beginning of the feed (its retention dropped old batches, or the
 * database had data before it was first published).
 *
 * ```
 * bucket  <stream>-checkpoints
 * objects <sequence, 16 digits>/<file>        each file of a db.checkpoint() (CURRENT,
 *                                             MANIFEST-*, *.sst, *.log, OPTIONS-*, IDENTITY)
 *         <sequence, 16 digits>/CHECKPOINT    {"sequence":N,"source":"<identity>","files":[...]}
 *                                             written last: a checkpoint without it is
 *                                             incomplete and never used
 * ```
 *
 * A follower restores the newest complete checkpoint into its (empty) directory, opens it
 * — its last sequence is then the checkpoint's — and follows the stream from the next
 * batch, which the stream must still hold (else NotFound naming that sequence, as for any
 * hole). Each file is held in memory while it is uploaded or restored (`putBlob`,
 * `getBlob`).
 */
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ShaleError } from "@shale/base";
import type { DB } from "@shale/db";
import type { NatsConnection, ObjectStore } from "nats";

/** What a checkpoint's CHECKPOINT object records. */
export interface StoredCheckpoint {
  readonly sequence: number;
  readonly source: string;
  readonly files: readonly string[];
}

/** The object store bucket of a stream's checkpoints. */
export const checkpointBucket = (stream: string): string => `${stream}-checkpoints`;

const prefixOf = (sequence: number): string => String(sequence).padStart(16, "0");

async function bucket(nc: NatsConnection, stream: string): Promise<ObjectStore> {
  return nc.jetstream().views.os(checkpointBucket(stream));
}

/** Uploads a checkpoint of `db` (see the file comment); returns what it recorded. */
export async function uploadCheckpoint(
  nc: NatsConnection,
  db: DB,
  stream: string,
  source: string,
): Promise<StoredCheckpoint> {
  const os = await bucket(nc, stream);
  const temp = mkdtempSync(join(tmpdir(), "shale-checkpoint-"));
  try {
    const dir = join(temp, "checkpoint");
    const info = await db.checkpoint(dir);
    const prefix = prefixOf(info.sequence);
    for (const file of info.files)
      await os.putBlob({ name: `${prefix}/${file}` }, readFileSync(join(dir, file)));
    const record: StoredCheckpoint = { sequence: info.sequence, source, files: [...info.files] };
    await os.putBlob(
      { name: `${prefix}/CHECKPOINT` },
      new TextEncoder().encode(JSON.stringify(record)),
    );
    return record;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** The newest complete checkpoint of `stream`, or undefined. */
export async function newestCheckpoint(
  nc: NatsConnection,
  stream: string,
): Promise<StoredCheckpoint | undefined> {
  const os = await bucket(nc, stream);
  let newest: string | undefined;
  for (const entry of await os.list()) {
    if (entry.deleted || !entry.name.endsWith("/CHECKPOINT")) continue;
    if (newest === undefined || entry.name > newest) newest = entry.name;
  }
  if (newest === undefined) return undefined;
  const bytes = await os.getBlob(newest);
  if (bytes === null) return undefined;
  const record = JSON.parse(new TextDecoder().decode(bytes)) as StoredCheckpoint;
  if (
    typeof record.sequence !== "number" ||
    typeof record.source !== "string" ||
    !Array.isArray(record.files)
  )
    throw ShaleError.corruption(
      `checkpoint ${newest} in ${checkpointBucket(stream)} is not shale's`,
    );
  return record;
}

/** Writes checkpoint `record`'s files into `dir` (created; expected empty), each synced. */
export async function restoreCheckpoint(
  nc: NatsConnection,
  stream: string,
  record: StoredCheckpoint,
  dir: string,
): Promise<void> {
  const os = await bucket(nc, stream);
  mkdirSync(dir, { recursive: true });
  const prefix = prefixOf(record.sequence);
  // CURRENT last: until it is there the directory holds no database.
  const files = [...record.files].sort((a, b) => (a === "CURRENT" ? 1 : b === "CURRENT" ? -1 : 0));
  for (const file of files) {
    const bytes = await os.getBlob(`${prefix}/${file}`);
    if (bytes === null)
      throw ShaleError.corruption(
        `checkpoint ${prefix} in ${checkpointBucket(stream)} lacks ${file}`,
      );
    const fd = openSync(join(dir, file), "w");
    try {
      writeSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  const dirFd = openSync(dir, "r");
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}
