/**
 * The backup meta file: `meta/<id>` in a backup directory, one per backup, describing it
 * completely — every file the restored database needs, where the backup keeps it, its size
 * and its CRC32C — and checksummed itself. Long form: docs/formats/backup.md.
 *
 * Text, UTF-8, lines ending in "\n", fields separated by one space, numbers in decimal:
 *
 * ```
 *   shale-backup 1                        magic and format version (this is version 1)
 *   id <id>                               the backup's id (= the file's name)
 *   timestamp <ms>                        when it was taken (ms since the epoch)
 *   sequence <seq>                        the last write it holds
 *   metadata <hex>                        optional: the caller's string, UTF-8 as hex
 *   files <n>                             then n lines:
 *   file <db name> <backup path> <size> <crc32c>
 *   checksum <crc32c>                     CRC32C of every byte before this line
 * ```
 *
 * `<db name>` is the file's name in a restored database (`000012.sst`, `MANIFEST-000009`,
 * `CURRENT`, ...); `<backup path>` is relative to the backup directory
 * (`shared_checksum/000012_<crc32c>_<size>.sst` for tables, shared by every backup holding
 * the same bytes; `private/<id>/<db name>` for the rest). Example:
 *
 * ```
 *   shale-backup 1
 *   id 2
 *   timestamp 1764547200000
 *   sequence 1500
 *   files 4
 *   file 000012.sst shared_checksum/000012_2745613937_4096.sst 4096 2745613937
 *   file MANIFEST-000011 private/2/MANIFEST-000011 180 3032870081
 *   file OPTIONS-000013 private/2/OPTIONS-000013 4410 1103398475
 *   file CURRENT private/2/CURRENT 16 1509183735
 *   checksum 17547631
 * ```
 *
 * A reader rejects anything else — an unknown version, a missing or reordered line, a bad
 * number, a path leaving the backup directory, a checksum that does not match — with
 * Corruption naming the meta file and the byte offset of the offending line.
 */
import { bytesToString, crc32c, ShaleError, toBytes } from "@shale/base";

export const META_FORMAT_VERSION = 1;

/** One file of a backup. */
export interface BackupFile {
  /** Name in the restored database directory. */
  readonly dbName: string;
  /** Path inside the backup directory. */
  readonly path: string;
  readonly size: number;
  readonly crc32c: number;
}

export interface BackupMeta {
  readonly id: number;
  readonly timestamp: number;
  readonly sequence: number;
  readonly metadata: string | undefined;
  readonly files: readonly BackupFile[];
}

const hex = (s: string) => Array.from(toBytes(s), (b) => b.toString(16).padStart(2, "0")).join("");

export function encodeMeta(meta: BackupMeta): Uint8Array {
  const lines = [
    `shale-backup ${META_FORMAT_VERSION}`,
    `id ${meta.id}`,
    `timestamp ${meta.timestamp}`,
    `sequence ${meta.sequence}`,
  ];
  if (meta.metadata !== undefined) lines.push(`metadata ${hex(meta.metadata)}`);
  lines.push(`files ${meta.files.length}`);
  for (const f of meta.files) {
    if (/\s/.test(f.dbName) || /\s/.test(f.path))
      throw ShaleError.invalidArgument(`backup file names cannot hold spaces: ${f.dbName}`);
    lines.push(`file ${f.dbName} ${f.path} ${f.size} ${f.crc32c >>> 0}`);
  }
  const body = toBytes(`${lines.join("\n")}\n`);
  const tail = toBytes(`checksum ${crc32c(body) >>> 0}\n`);
  const out = new Uint8Array(body.length + tail.length);
  out.set(body, 0);
  out.set(tail, body.length);
  return out;
}

const SAFE_NAME = /^[A-Za-z0-9._-]+$/;

/** Parses and checks a meta file; `file` names it in errors. */
export function decodeMeta(bytes: Uint8Array, file: string): BackupMeta {
  const text = bytesToString(bytes);
  const lines = text.split("\n");
  let at = 0; // byte offset of the current line
  let index = 0;
  const fail = (what: string): never => {
    throw ShaleError.corruption(`backup meta: ${what}`, file, at);
  };
  const next = (): string[] => {
    if (index >= lines.length - 1) fail("ends early");
    const line = lines[index]!;
    const fields = line.split(" ");
    if (index > 0) at += toBytes(lines[index - 1]!).length + 1;
    index++;
    return fields;
  };
  const num = (s: string | undefined, what: string): number => {
    if (s === undefined || !/^\d{1,16}$/.test(s)) fail(`bad ${what} ${JSON.stringify(s)}`);
    const n = Number(s);
    if (!Number.isSafeInteger(n)) fail(`bad ${what} ${s}`);
    return n;
  };
  const expectLine = (name: string, count: number): string[] => {
    const f = next();
    if (f[0] !== name || f.length !== count + 1) fail(`expected "${name}" line`);
    return f;
  };
  // The checksum line first: everything before it must match.
  const checksumAt = text.lastIndexOf("\nchecksum ");
  if (checksumAt < 0 || !text.endsWith("\n")) {
    at = 0;
    fail("no checksum line");
  }
  const bodyBytes = toBytes(text.slice(0, checksumAt + 1));
  const stored = /^checksum (\d{1,10})\n$/.exec(text.slice(checksumAt + 1));
  if (stored === null) {
    at = bodyBytes.length;
    fail("bad checksum line");
  }
  const actual = crc32c(bodyBytes) >>> 0;
  if (Number(stored![1]) !== actual) {
    at = bodyBytes.length;
    fail(`checksum mismatch: stored ${stored![1]}, computed ${actual}`);
  }
  const magic = next();
  if (magic[0] !== "shale-backup" || magic.length !== 2) fail("not a shale backup meta file");
  if (magic[1] !== String(META_FORMAT_VERSION)) fail(`unknown format version ${magic[1]}`);
  const id = num(expectLine("id", 1)[1], "id");
  const timestamp = num(expectLine("timestamp", 1)[1], "timestamp");
  const sequence = num(expectLine("sequence", 1)[1], "sequence");
  let metadata: string | undefined;
  let f = next();
  if (f[0] === "metadata") {
    if (f.length !== 2 || !/^(?:[0-9a-f]{2})*$/.test(f[1]!)) fail("bad metadata");
    const raw = new Uint8Array(f[1]!.length / 2);
    for (let i = 0; i < raw.length; i++)
      raw[i] = Number.parseInt(f[1]!.slice(2 * i, 2 * i + 2), 16);
    metadata = bytesToString(raw);
    f = next();
  }
  if (f[0] !== "files" || f.length !== 2) fail('expected "files" line');
  const count = num(f[1], "file count");
  const files: BackupFile[] = [];
  for (let i = 0; i < count; i++) {
    const line = expectLine("file", 4);
    const dbName = line[1]!;
    const path = line[2]!;
    if (!SAFE_NAME.test(dbName)) fail(`bad file name ${JSON.stringify(dbName)}`);
    const parts = path.split("/");
    if (parts.some((p) => !SAFE_NAME.test(p) || p === "." || p === ".."))
      fail(`bad backup path ${JSON.stringify(path)}`);
    const size = num(line[3], "size");
    const crc = num(line[4], "crc32c");
    if (crc > 0xffffffff) fail(`bad crc32c ${crc}`);
    files.push({ dbName, path, size, crc32c: crc });
  }
  if (index !== lines.length - 2) fail("unexpected line before the checksum");
  return { id, timestamp, sequence, metadata, files };
}
