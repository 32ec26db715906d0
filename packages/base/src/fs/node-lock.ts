/**
 * The LOCK file behind `NodeFileSystem.lock` (node-fs.ts). Node can take no `fcntl` or
 * `flock` lock, so shale's lock is the LOCK file's content, changed under a short-lived
 * claim, and it also honours the fcntl locks RocksDB takes on the same file:
 *
 * 1. A lock is the LOCK file of a DIRECTORY, identified by the directory's device and inode
 *    (followed through symlinks), not by the path string: `a/LOCK`, `./a/LOCK` and
 *    `link-to-a/LOCK` are one lock. In this JS realm a set of held (dev, ino, name) keys
 *    makes a second `lock` `Busy` before the file is even looked at.
 * 2. The LOCK file is never removed, like RocksDB's (`PosixEnv::LockFile` creates it and
 *    leaves it in place): removing it would strand a RocksDB that holds an fcntl lock on
 *    the old inode while a second RocksDB locks a new one. It is opened (created if
 *    missing, never truncated by the open) and:
 *    - `Busy` if `/proc/locks` lists a POSIX, OFD or flock lock on its (device, inode): a
 *      RocksDB (or LevelDB, Pebble, ...) has the directory open (proc-locks.ts; Linux);
 *    - `Busy` if it names a live process other than us (`kill(pid, 0)` succeeds or fails
 *      with EPERM), or our own pid while another descriptor of this process has it open
 *      (another thread's lock; found through /proc/self/fd on Linux);
 *    - otherwise free (empty: released, or RocksDB's; a dead pid: its owner crashed;
 *      anything else): we write our pid over it in place and keep it open until `release`.
 * 3. Step 2 runs holding the CLAIM file `LOCK.claim`, created with O_EXCL and removed right
 *    after, so of two contenders only one reads and writes LOCK at a time. The claim holds
 *    its owner's pid; one left by a crash (its pid dead, or unparsable and older than 2 s) is
 *    removed — a claim is only ever shale's own file — and the other contender is `Busy`
 *    for those microseconds ("contended").
 * 4. `release` closes the descriptor after emptying the file (back to RocksDB's empty LOCK)
 *    if it is still the file this lock wrote and still names us; it removes nothing.
 *
 * ```
 * LOCK        held:  the owner's pid in decimal ASCII, then "\n"    e.g. "4242\n"
 *             free:  empty (after release; RocksDB's is always empty), or a dead pid
 * LOCK.claim  exists only while a lock is taken: the taker's pid, then "\n"
 * ```
 *
 * Limits (pid reuse, network file systems, threads off Linux, no /proc/locks): see
 * `NodeFileSystem.lock`.
 */
import {
  constants,
  fstatSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  unlinkSync,
} from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { ShaleError } from "../errors.js";
import type { FileLock } from "./file-system.js";
import { closeFd, errnoOf, ioError, readFully, writeFully } from "./node-io.js";
import { describeHolder, fileLockHolders } from "./proc-locks.js";

/** An unparsable claim file younger than this may be a contender mid-creation: Busy. */
const CLAIM_CREATION_GRACE_MS = 2000;

/** The suffix of the claim file beside the LOCK file. */
export const CLAIM_SUFFIX = ".claim";

/**
 * The LOCK files held by this JS realm (main thread or one worker), by `lockKey`: the
 * directory's device and inode and the file's name.
 */
const heldLocks = new Set<string>();

/** The identity of the lock at `abs`: its directory's (dev, ino), through symlinks, and name. */
function lockKey(abs: string): string {
  const parent = dirname(abs);
  let st: { dev: bigint; ino: bigint };
  try {
    st = statSync(parent, { bigint: true });
  } catch (err) {
    throw ioError("stat", parent, err);
  }
  return `${st.dev}:${st.ino}/${basename(abs)}`;
}

/** (dev, ino) of a file, or undefined if it does not exist. */
function fileIdentity(path: string): string | undefined {
  try {
    const st = statSync(path, { bigint: true });
    return `${st.dev}:${st.ino}`;
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return undefined;
    throw ioError("stat", path, err);
  }
}

/**
 * True if a descriptor of this process other than `exceptFd` has the file `identity` open
 * (a lock held by another thread of this process). Linux only (/proc/self/fd); else false.
 */
function openInThisProcess(identity: string, exceptFd: number): boolean {
  let fds: string[];
  try {
    fds = readdirSync("/proc/self/fd");
  } catch {
    return false;
  }
  for (const fd of fds) {
    if (Number(fd) === exceptFd) continue;
    try {
      const st = statSync(`/proc/self/fd/${fd}`, { bigint: true });
      if (`${st.dev}:${st.ino}` === identity) return true;
    } catch {
      // closed meanwhile, or not a file
    }
  }
  return false;
}

/** True if a process with this pid exists (EPERM: it exists but belongs to someone else). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoOf(err) === "EPERM";
  }
}

/** The pid a LOCK or claim file names, or undefined if its text is not one. */
function pidIn(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^[1-9][0-9]{0,9}$/.test(trimmed)) return undefined;
  const pid = Number(trimmed);
  return pid > 0x7fffffff ? undefined : pid;
}

const encoder = new TextEncoder();

// ------------------------------------------------------------------ the claim file

/** A claim file this process created: its descriptor and (dev, ino). */
interface Claim {
  fd: number;
  identity: string;
}

/**
 * Who holds the claim file: "free" (gone meanwhile), "live" (a live process other than us,
 * another thread of this process, or an unparsable file young enough to be mid-creation) or
 * "stale".
 */
function claimOwnerState(abs: string): "free" | "live" | "stale" {
  let text: string;
  try {
    text = readFileSync(abs, "utf8");
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return "free";
    throw ioError("open", abs, err);
  }
  const pid = pidIn(text);
  if (pid !== undefined) {
    if (pid !== process.pid) return processAlive(pid) ? "live" : "stale";
    const identity = fileIdentity(abs);
    if (identity === undefined) return "free";
    return openInThisProcess(identity, -1) ? "live" : "stale";
  }
  try {
    return Date.now() - statSync(abs).mtimeMs < CLAIM_CREATION_GRACE_MS ? "live" : "stale";
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return "free";
    throw ioError("stat", abs, err);
  }
}

/** Creates the claim file with O_EXCL and our pid; undefined if it already exists. */
function tryCreateClaim(abs: string): Claim | undefined {
  let fd: number;
  try {
    fd = openSync(abs, "wx");
  } catch (err) {
    if (errnoOf(err) === "EEXIST") return undefined;
    throw ioError("open", abs, err);
  }
  const pid = encoder.encode(`${process.pid}\n`);
  try {
    writeFully(fd, pid, 0, pid.length);
    const st = fstatSync(fd, { bigint: true });
    return { fd, identity: `${st.dev}:${st.ino}` };
  } catch (err) {
    closeFd(fd, abs);
    removeIfPresent(abs);
    throw ioError("write", abs, err);
  }
}

/** Takes the claim file `abs` (step 3 of the file comment); `Busy` if another has it. */
function takeClaim(abs: string, lockPath: string): Claim {
  for (let attempt = 0; attempt < 3; attempt++) {
    const claim = tryCreateClaim(abs);
    if (claim !== undefined) return claim;
    const owner = claimOwnerState(abs);
    if (owner === "live") break;
    if (owner === "stale") removeIfPresent(abs);
  }
  throw ShaleError.busy(
    `${dirname(lockPath)} is in use: another process or thread is taking or releasing its LOCK (${basename(abs)} exists)`,
    lockPath,
  );
}

/** Closes the claim and removes its file if it is still the one we created. */
function releaseClaim(abs: string, claim: Claim): void {
  try {
    closeFd(claim.fd, abs);
  } finally {
    if (fileIdentity(abs) === claim.identity) removeIfPresent(abs);
  }
}

// ------------------------------------------------------------------ the LOCK file

/** The LOCK file a lock holds: its descriptor and (dev, ino). */
interface HeldLockFile {
  fd: number;
  identity: string;
}

/** The text of an open file (LOCK files are a few bytes; at most 64 are read). */
function readSmall(fd: number): string {
  const buf = new Uint8Array(64);
  const n = readFully(fd, buf, 0, buf.length, 0);
  return new TextDecoder().decode(buf.subarray(0, n));
}

/** `Busy` if `/proc/locks` lists a holder of the file (dev, ino); nothing where it is absent. */
function refuseLockedFile(dev: bigint, ino: bigint, path: string): void {
  const holder = fileLockHolders(dev, ino)?.[0];
  if (holder === undefined) return;
  throw ShaleError.busy(
    `${dirname(path)} is in use: ${describeHolder(holder)} on its LOCK file (a RocksDB, or another engine that locks with fcntl or flock, has it open)`,
    path,
  );
}

/**
 * Opens the LOCK file (creating it, never truncating) and takes it, or throws `Busy`. An
 * existing file is checked against `/proc/locks` before it is opened too: closing a
 * descriptor drops every POSIX lock its process holds on the file, so a RocksDB in this very
 * process (a native addon) must not lose its lock to our look.
 */
function takeLockFile(abs: string, path: string): HeldLockFile {
  try {
    const before = statSync(abs, { bigint: true });
    refuseLockedFile(before.dev, before.ino, path);
  } catch (err) {
    if (ShaleError.isInstance(err)) throw err;
    if (errnoOf(err) !== "ENOENT") throw ioError("stat", abs, err);
  }
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDWR | constants.O_CREAT, 0o644);
  } catch (err) {
    throw ioError("open", abs, err);
  }
  try {
    const st = fstatSync(fd, { bigint: true });
    const identity = `${st.dev}:${st.ino}`;
    const dir = dirname(path);
    refuseLockedFile(st.dev, st.ino, path);
    const owner = pidIn(readSmall(fd));
    if (owner === process.pid && openInThisProcess(identity, fd)) {
      throw ShaleError.busy(
        `${dir} is in use: another thread of this process holds its LOCK`,
        path,
      );
    }
    if (owner !== undefined && owner !== process.pid && processAlive(owner)) {
      throw ShaleError.busy(`${dir} is in use: its LOCK names live process ${owner}`, path);
    }
    const pid = encoder.encode(`${process.pid}\n`);
    ftruncateSync(fd, 0);
    writeFully(fd, pid, 0, pid.length);
    return { fd, identity };
  } catch (err) {
    closeFd(fd, abs);
    throw ShaleError.isInstance(err) ? err : ioError("write", abs, err);
  }
}

/**
 * Empties the LOCK file if it is still the one this lock wrote (`identity`) and still names
 * us (someone may have replaced or rewritten it), then closes it. Never removes it.
 */
function releaseLockFile(abs: string, held: HeldLockFile): void {
  try {
    if (fileIdentity(abs) === held.identity && pidIn(readSmall(held.fd)) === process.pid) {
      ftruncateSync(held.fd, 0);
    }
  } catch (err) {
    closeFd(held.fd, abs);
    throw ioError("truncate", abs, err);
  }
  closeFd(held.fd, abs);
}

/** Takes the LOCK file at `path` (see the file comment and `NodeFileSystem.lock`). */
export function lockFile(path: string): FileLock {
  const abs = resolve(path);
  const key = lockKey(abs);
  if (heldLocks.has(key)) {
    throw ShaleError.busy(`${dirname(path)} is in use: this process holds its LOCK`, path);
  }
  const claimPath = `${abs}${CLAIM_SUFFIX}`;
  const claim = takeClaim(claimPath, path);
  let file: HeldLockFile;
  try {
    file = takeLockFile(abs, path);
  } finally {
    releaseClaim(claimPath, claim);
  }
  heldLocks.add(key);
  let held = true;
  return {
    path,
    release: () => {
      if (!held) return;
      held = false;
      heldLocks.delete(key);
      releaseLockFile(abs, file);
    },
  };
}

function removeIfPresent(abs: string): void {
  try {
    unlinkSync(abs);
  } catch (err) {
    if (errnoOf(err) !== "ENOENT") throw ioError("unlink", abs, err);
  }
}
