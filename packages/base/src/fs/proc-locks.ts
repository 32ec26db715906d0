/**
 * Who holds a file lock on a file, from Linux's `/proc/locks`: how `NodeFileSystem.lock`
 * (node-lock.ts) sees RocksDB's LOCK. RocksDB (and LevelDB, Pebble) lock `LOCK` with
 * `fcntl(F_SETLK)`, a POSIX record lock; Node cannot take one, but the kernel lists every
 * lock held on the machine, one line each:
 *
 * ```
 * id: [-> ]class  mode      access pid   maj:min:inode start end
 * 1: POSIX  ADVISORY  WRITE 4242 fe:00:2163019 0 EOF      fcntl(F_SETLK), RocksDB's way
 * 2: OFDLCK ADVISORY  WRITE -1 103:02:811 0 EOF           fcntl(F_OFD_SETLK); no pid
 * 3: FLOCK  ADVISORY  WRITE 977 00:2c:12 0 EOF            flock(2)
 * 4: LEASE  ACTIVE    READ 1330 fe:00:99 0 EOF            a lease (a cache, not a lock)
 * 4: -> POSIX  ADVISORY  WRITE 5151 fe:00:2163019 0 EOF   a process WAITING for lock 4
 * ```
 *
 * - `maj:min` is the device of the file system in HEXADECIMAL (the kernel prints `%02x:%02x`
 *   of MAJOR/MINOR: `fe:00` is 254:0, `103:02` is 259:2), the inode in decimal. Node's
 *   `stat.dev` is glibc's encoding of the same pair (`gnu_dev_major/minor`), decoded by
 *   `deviceNumbers`; comparing the decimal `stat.dev` to the text would never match.
 * - The pid is -1 for OFD locks (they belong to an open file description, not a process)
 *   and 0 for a holder in another pid namespace (a container): "pid unknown".
 * - `->` lines are waiters blocked on the lock above them, not holders.
 * - Inode-less entries print `<none>:0` and match nothing.
 *
 * `fileLockHolders` reads the file; `parseProcLocks` and `holdersOf` are pure (unit tested
 * with data-driven lines). Where `/proc/locks` does not exist (macOS, Windows, a browser,
 * some sandboxes) the answer is `undefined`: nothing can be seen.
 */
import { readFileSync } from "node:fs";

/** One line of `/proc/locks`. */
export interface ProcLock {
  /** The lock's ordinal (waiters repeat the ordinal of the lock they wait for). */
  readonly id: number;
  /** A `->` line: a waiter blocked on lock `id`, not a holder. */
  readonly blocked: boolean;
  /** `POSIX`, `OFDLCK`, `FLOCK`, `LEASE`, `DELEG`, `ACCESS`, ... as printed. */
  readonly kind: string;
  /** `ADVISORY`, `MANDATORY`, `ACTIVE`, `BREAKING`, ... as printed. */
  readonly mode: string;
  /** `READ`, `WRITE`, `UNLCK`, ... as printed. */
  readonly access: string;
  /** As printed: -1 for OFD locks, 0 for a holder outside our pid namespace. */
  readonly pid: number;
  /** The device (decoded from hex) and inode (decimal text); undefined for `<none>`. */
  readonly major: number | undefined;
  readonly minor: number | undefined;
  readonly inode: string | undefined;
}

/** The lock kinds that claim a file for a process: fcntl record locks, OFD locks, flock. */
export const HOLDING_KINDS: ReadonlySet<string> = new Set(["POSIX", "OFDLCK", "FLOCK"]);

const LINE =
  /^\s*(\d+):\s+((?:->\s+)*)(\S+)\s+(\S+)\s+(\S+)\s+(-?\d+)\s+(?:([0-9a-fA-F]+):([0-9a-fA-F]+):(\d+)|<none>:0)\s/;

/** Parses one line of `/proc/locks`; undefined for a line of an unknown shape. */
export function parseProcLocksLine(line: string): ProcLock | undefined {
  const m = LINE.exec(`${line} `);
  if (m === null) return undefined;
  const hasInode = m[9] !== undefined;
  return {
    id: Number(m[1]),
    blocked: (m[2] ?? "").length > 0,
    kind: m[3] ?? "",
    mode: m[4] ?? "",
    access: m[5] ?? "",
    pid: Number(m[6]),
    major: hasInode ? Number.parseInt(m[7] ?? "", 16) : undefined,
    minor: hasInode ? Number.parseInt(m[8] ?? "", 16) : undefined,
    inode: hasInode ? BigInt(m[9] ?? "0").toString() : undefined,
  };
}

/** Every parsable line of a `/proc/locks` text, in order. */
export function parseProcLocks(text: string): ProcLock[] {
  const out: ProcLock[] = [];
  for (const line of text.split("\n")) {
    const lock = parseProcLocksLine(line);
    if (lock !== undefined) out.push(lock);
  }
  return out;
}

/** The (major, minor) of a `stat.dev` as glibc encodes it (`gnu_dev_major`/`gnu_dev_minor`). */
export function deviceNumbers(dev: bigint): { major: number; minor: number } {
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & 0xfffff000n);
  const minor = (dev & 0xffn) | ((dev >> 12n) & 0xffffff00n);
  return { major: Number(major), minor: Number(minor) };
}

/** A lock that holds a file: its kind and the holder's pid (undefined when not reported). */
export interface LockHolder {
  readonly kind: string;
  readonly access: string;
  readonly pid: number | undefined;
}

/**
 * The holders (not waiters) of POSIX, OFD and flock locks on the file (dev, ino), from the
 * text of `/proc/locks`. Leases and delegations are ignored (they are caches, not claims).
 */
export function holdersOf(text: string, dev: bigint, ino: bigint): LockHolder[] {
  const { major, minor } = deviceNumbers(dev);
  const inode = ino.toString();
  const out: LockHolder[] = [];
  for (const lock of parseProcLocks(text)) {
    if (lock.blocked || !HOLDING_KINDS.has(lock.kind)) continue;
    if (lock.inode !== inode || lock.major !== major || lock.minor !== minor) continue;
    out.push({ kind: lock.kind, access: lock.access, pid: lock.pid > 0 ? lock.pid : undefined });
  }
  return out;
}

/**
 * The holders of locks on the file (dev, ino) now, or undefined where `/proc/locks` cannot
 * be read (not Linux, or no procfs): then nothing is known.
 */
export function fileLockHolders(dev: bigint, ino: bigint): LockHolder[] | undefined {
  let text: string;
  try {
    text = readFileSync("/proc/locks", "utf8");
  } catch {
    return undefined;
  }
  return holdersOf(text, dev, ino);
}

/** "process 4242 holds a POSIX record lock (fcntl, RocksDB's kind)", for error messages. */
export function describeHolder(holder: LockHolder): string {
  const who = holder.pid !== undefined ? `process ${holder.pid}` : "a process (pid not reported)";
  const how =
    holder.kind === "POSIX"
      ? "a POSIX record lock (fcntl F_SETLK, what RocksDB takes)"
      : holder.kind === "OFDLCK"
        ? "an open-file-description lock (fcntl F_OFD_SETLK)"
        : "a BSD lock (flock)";
  return `${who} holds ${how}`;
}
