/**
 * Secondary registrations: how a secondary instance asks the primary (another process) to
 * keep the files it still reads. RocksDB's secondaries have no such channel (a file the
 * primary deletes is an error for them, or `max_open_files = -1` keeps every table open);
 * shale adds one, in a place RocksDB ignores: a subdirectory of the primary's directory.
 *
 * ```
 * <primary dir>/secondaries/<id>.reg        one file per live secondary (id: 16 hex digits)
 * <primary dir>/secondaries/<id>.reg.tmp    being written (renamed over <id>.reg)
 *
 * shale-secondary 1\n                 magic and format version
 * pid <decimal>\n                     the secondary's process id
 * host <hostname>\n                   where that process runs
 * expires <decimal>\n                 end of the lease, ms since 1970 (Date.now())
 * manifest <decimal>\n                the MANIFEST number the secondary follows
 * min-log <decimal>\n                 the lowest WAL number it still reads (0: none)
 * tables[ <decimal>]*\n               every table of every version it holds
 * crc32c <8 lowercase hex>\n          CRC32C (unmasked) of every byte before this line
 * ```
 *
 * Worked example (a secondary of pid 4242 holding tables 7 and 12, reading WALs from 14):
 * `shale-secondary 1\npid 4242\nhost db1\nexpires 1764600060000\nmanifest 5\nmin-log 14\n`
 * `tables 7 12\ncrc32c b5b45217\n` (the checksum covers the 92 bytes before its line).
 *
 * Protocol:
 * - The secondary writes its registration (temp file, then rename: a reader sees the old
 *   or the new one whole) before it opens the files of a version it read from the MANIFEST,
 *   after every catch-up that changed what it holds, and every `leaseMs / 3` from a timer;
 *   each write extends the lease to now + `leaseMs`. `close()` removes it.
 * - The primary, before deleting obsolete tables or WALs (db.ts `removeFiles`, recovery's
 *   `removeObsoleteFiles`), reads every registration: a live one (lease not ended, and on
 *   this host its process alive) keeps the tables it names and the WALs numbered at or
 *   above its `min-log`. Kept files are deleted later, once no live registration names
 *   them: when the secondary catches up, or its lease ends (the grace period).
 * - Deletions that raced a registration being written can only hit files the secondary
 *   had not opened yet; it finds them missing, reads the MANIFEST on (a later edit no
 *   longer names them) and registers again. Files it has open stay readable on POSIX.
 * - A registration that does not parse or fails its checksum is Corruption naming the file
 *   and offset to whoever reads it; the primary ignores such a file (with a process warning)
 *   and removes registrations whose lease ended more than a minute ago.
 */
import { bytesToString, crc32c, type FileSystem, joinPath, ShaleError, toBytes } from "@shale/base";
import { hostName } from "./host.js";

export const REGISTRATION_DIR = "secondaries";
const MAGIC = "shale-secondary 1";
const NAME = /^([0-9a-f]{16})\.reg$/;

export interface Registration {
  pid: number;
  host: string;
  /** End of the lease, ms since 1970. */
  expires: number;
  manifest: number;
  /** Lowest WAL still read (0: none). */
  minLog: number;
  tables: number[];
}

export const registrationDir = (dir: string): string => joinPath(dir, REGISTRATION_DIR);

/** The registration's bytes (format above). */
export function encodeRegistration(r: Registration): Uint8Array {
  const body =
    `${MAGIC}\npid ${r.pid}\nhost ${r.host}\nexpires ${r.expires}\nmanifest ${r.manifest}\n` +
    `min-log ${r.minLog}\ntables${r.tables.map((n) => ` ${n}`).join("")}\n`;
  const bytes = toBytes(body);
  const crc = crc32c(bytes).toString(16).padStart(8, "0");
  return toBytes(`${body}crc32c ${crc}\n`);
}

/** Parses a registration; Corruption naming `file` and the offset of the bad line. */
export function decodeRegistration(bytes: Uint8Array, file: string): Registration {
  const text = bytesToString(bytes);
  const lines = text.split("\n");
  let offset = 0;
  let line = 0;
  const bad = (why: string): ShaleError =>
    ShaleError.corruption(`secondary registration: ${why}`, file, offset);
  const next = (key: string): string => {
    const l = lines[line];
    if (l === undefined || !(l === key || l.startsWith(`${key} `))) throw bad(`expected "${key}"`);
    line++;
    const value = l.slice(key.length + 1);
    offset += l.length + 1;
    return value;
  };
  const number = (key: string): number => {
    const v = next(key);
    if (!/^\d+$/.test(v)) throw bad(`${key} is not a number`);
    return Number(v);
  };
  if (lines[0] !== MAGIC) throw bad("not a registration (bad magic or version)");
  offset = MAGIC.length + 1;
  line = 1;
  const pid = number("pid");
  const host = next("host");
  const expires = number("expires");
  const manifest = number("manifest");
  const minLog = number("min-log");
  const tablesLine = next("tables");
  const tables = tablesLine === "" ? [] : tablesLine.split(" ").map(Number);
  if (tables.some((n) => !Number.isSafeInteger(n) || n < 0)) throw bad("bad table number");
  const crcAt = offset;
  const crc = next("crc32c");
  if (!/^[0-9a-f]{8}$/.test(crc) || Number.parseInt(crc, 16) !== crc32c(bytes, 0, crcAt)) {
    offset = crcAt;
    throw bad("checksum mismatch");
  }
  if (line !== lines.length - 1 || lines[line] !== "") throw bad("bytes after the checksum");
  return { pid, host, expires, manifest, minLog, tables };
}

/** The secondary's side: writes, renews and removes its registration. */
export class RegistrationWriter {
  private readonly fs: FileSystem;
  private readonly path: string;
  private readonly leaseMs: number;
  private last: Registration | undefined;
  private lastWrite = 0;
  /** Set once a write failed (e.g. a read-only primary directory): we go on without pins. */
  failed: unknown;

  constructor(fs: FileSystem, primaryDir: string, leaseMs: number) {
    this.fs = fs;
    this.leaseMs = leaseMs;
    let id = "";
    for (let i = 0; i < 16; i++) id += Math.floor(Math.random() * 16).toString(16);
    this.path = joinPath(registrationDir(primaryDir), `${id}.reg`);
  }

  get file(): string {
    return this.path;
  }

  /**
   * Writes the registration if what it pins changed, or if a third of the lease has passed
   * (`force`: always). Best effort: a failure is kept in `failed` and not thrown.
   */
  write(manifest: number, minLog: number, tables: number[], force = false): void {
    const now = Date.now();
    const sorted = [...tables].sort((a, b) => a - b);
    const prev = this.last;
    const same =
      prev !== undefined &&
      prev.manifest === manifest &&
      prev.minLog === minLog &&
      prev.tables.length === sorted.length &&
      prev.tables.every((n, i) => n === sorted[i]);
    if (same && !force && now - this.lastWrite < this.leaseMs / 3) return;
    const reg: Registration = {
      pid: process.pid,
      host: hostName(),
      expires: now + this.leaseMs,
      manifest,
      minLog,
      tables: sorted,
    };
    try {
      const dir = this.path.slice(0, this.path.lastIndexOf("/"));
      this.fs.mkdir(dir);
      const tmp = `${this.path}.tmp`;
      this.fs.writeFile(tmp, encodeRegistration(reg));
      this.fs.rename(tmp, this.path);
      this.last = reg;
      this.lastWrite = now;
      this.failed = undefined;
    } catch (e) {
      this.failed = e;
    }
  }

  /** Renews the lease with what was last registered (the heartbeat). */
  renew(): void {
    const r = this.last;
    if (r !== undefined) this.write(r.manifest, r.minLog, r.tables, true);
  }

  /** Removes the registration (best effort). */
  remove(): void {
    try {
      if (this.fs.exists(this.path)) this.fs.remove(this.path);
    } catch {
      // The lease ends on its own.
    }
  }
}

/** Ended leases are removed by the primary this long after they end. */
const STALE_REMOVAL_MS = 60_000;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === "EPERM";
  }
}

/** What the live registrations keep, and when the first of their leases ends. */
export interface Pins {
  tables: Set<number>;
  /** WALs numbered at or above this are kept (Infinity: none). */
  minLog: number;
  /** The earliest lease end among the live registrations (Infinity: none). */
  nextExpiry: number;
  live: number;
}

/** Reads every registration under `dir` (the primary's side). Cheap when there is none. */
export function readPins(fs: FileSystem, dir: string, now = Date.now()): Pins {
  const pins: Pins = {
    tables: new Set(),
    minLog: Number.POSITIVE_INFINITY,
    nextExpiry: Number.POSITIVE_INFINITY,
    live: 0,
  };
  const regDir = registrationDir(dir);
  if (!fs.exists(regDir)) return pins;
  let names: string[];
  try {
    names = fs.list(regDir);
  } catch {
    return pins;
  }
  const host = hostName();
  for (const name of names) {
    if (!NAME.test(name)) continue;
    const path = joinPath(regDir, name);
    let reg: Registration;
    try {
      reg = decodeRegistration(fs.readFile(path), path);
    } catch (e) {
      if (ShaleError.isInstance(e) && e.code === "Corruption") {
        process.emitWarning(`ignoring a damaged secondary registration: ${e.message}`, {
          type: "ShaleWarning",
          code: "SHALE_SECONDARY_REGISTRATION",
        });
      }
      continue; // removed or rewritten meanwhile
    }
    const dead = reg.host === host && !processAlive(reg.pid);
    if (reg.expires <= now || dead) {
      if (dead || now - reg.expires > STALE_REMOVAL_MS) {
        try {
          fs.remove(path);
        } catch {
          // already gone
        }
      }
      continue;
    }
    pins.live++;
    for (const n of reg.tables) pins.tables.add(n);
    if (reg.minLog > 0 && reg.minLog < pins.minLog) pins.minLog = reg.minLog;
    if (reg.expires < pins.nextExpiry) pins.nextExpiry = reg.expires;
  }
  return pins;
}
