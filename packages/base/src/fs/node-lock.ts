/**
 * The LOCK file behind `NodeFileSystem.lock` (node-fs.ts). Node has no `flock`, so:
 *
 * 1. A lock is the LOCK file of a DIRECTORY, identified by the directory's device and inode
 *    (followed through symlinks), not by the path string: `a/LOCK`, `./a/LOCK` and
 *    `link-to-a/LOCK` are one lock. In this JS realm a set of held (dev, ino, name) keys
 *    makes a second `lock` `Busy` before the file is even looked at.
 * 2. Across processes, the file is created with O_EXCL ("wx") and holds the owner's pid; the
 *    holder keeps it open until `release`. If it exists, its pid is read: a live process
 *    other than us (`kill(pid, 0)` succeeds or fails with EPERM) means `Busy`. Our own pid
 *    means `Busy` if a descriptor of this process has the file open (another thread's
 *    lock; found through /proc/self/fd on Linux), else stale. A stale lock (its owner died
 *    without `release`, e.g. SIGKILL) is removed and creation retried once with O_EXCL, so
 *    of two contenders only one wins the new file.
 * 3. An unparsable (e.g. still empty) file younger than 2 s is taken as a contender
 *    between create and write: `Busy`; older, it is stale.
 * 4. `release` closes the descriptor and removes the file only if it is still the very file
 *    this lock created (same device and inode) and still names us: a handle never removes a
 *    LOCK file it does not hold.
 *
 * ```
 * LOCK file: the owner's pid in decimal ASCII, then "\n"      e.g. "4242\n"
 * ```
 *
 * Limits (pid reuse, two contenders on one stale file, network file systems, threads off
 * Linux): see `NodeFileSystem.lock`.
 */
import { fstatSync, openSync, readdirSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { ShaleError } from "../errors.js";
import type { FileLock } from "./file-system.js";
import { closeFd, errnoOf, ioError, writeFully } from "./node-io.js";

/** An unparsable LOCK file younger than this may be a contender mid-creation: Busy. */
const LOCK_CREATION_GRACE_MS = 2000;

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
 * True if a descriptor of this process has the file `identity` open (a lock held by another
 * thread of this process). Linux only (/proc/self/fd); elsewhere false.
 */
function openInThisProcess(identity: string): boolean {
  let fds: string[];
  try {
    fds = readdirSync("/proc/self/fd");
  } catch {
    return false;
  }
  for (const fd of fds) {
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

/**
 * Who holds the LOCK file: "free" (gone meanwhile), "live" (a live process other than us,
 * another thread of this process, or an unparsable file young enough to be mid-creation) or
 * "stale".
 */
function lockOwnerState(abs: string): "free" | "live" | "stale" {
  let text: string;
  try {
    text = readFileSync(abs, "utf8").trim();
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return "free";
    throw ioError("open", abs, err);
  }
  if (/^[1-9][0-9]{0,9}$/.test(text)) {
    const pid = Number(text);
    if (pid > 0x7fffffff) return "stale";
    if (pid === process.pid) {
      const identity = fileIdentity(abs);
      if (identity === undefined) return "free";
      return openInThisProcess(identity) ? "live" : "stale";
    }
    return processAlive(pid) ? "live" : "stale";
  }
  try {
    return Date.now() - statSync(abs).mtimeMs < LOCK_CREATION_GRACE_MS ? "live" : "stale";
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return "free";
    throw ioError("stat", abs, err);
  }
}

/** The LOCK file this lock created: its open descriptor and (dev, ino). */
interface CreatedLockFile {
  fd: number;
  identity: string;
}

/**
 * Creates the LOCK file with O_EXCL and our pid, and keeps it open; undefined if it already
 * exists.
 */
function tryCreateLockFile(abs: string): CreatedLockFile | undefined {
  let fd: number;
  try {
    fd = openSync(abs, "wx");
  } catch (err) {
    if (errnoOf(err) === "EEXIST") return undefined;
    throw ioError("open", abs, err);
  }
  const pid = new TextEncoder().encode(`${process.pid}\n`);
  let identity: string;
  try {
    writeFully(fd, pid, 0, pid.length);
    const st = fstatSync(fd, { bigint: true });
    identity = `${st.dev}:${st.ino}`;
  } catch (err) {
    closeFd(fd, abs);
    removeIfPresent(abs);
    throw ioError("write", abs, err);
  }
  return { fd, identity };
}

/** Takes the LOCK file at `path` (see the file comment and `NodeFileSystem.lock`). */
export function lockFile(path: string): FileLock {
  const abs = resolve(path);
  const key = lockKey(abs);
  if (heldLocks.has(key)) throw ShaleError.busy("lock is held by this process", path);
  let created: CreatedLockFile | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    if ((created = tryCreateLockFile(abs)) !== undefined) break;
    const owner = lockOwnerState(abs);
    if (owner === "live") throw ShaleError.busy("lock is held by another process or thread", path);
    if (owner === "stale") removeIfPresent(abs);
  }
  if (created === undefined) throw ShaleError.busy("lock is contended", path);
  const file = created;
  heldLocks.add(key);
  let held = true;
  return {
    path,
    release: () => {
      if (!held) return;
      held = false;
      heldLocks.delete(key);
      try {
        closeFd(file.fd, abs);
      } finally {
        releaseLockFile(abs, file.identity);
      }
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

/**
 * Removes the LOCK file if it is still the one this lock created (`identity`) and still
 * names us (someone may have removed it and retaken the lock, or rewritten it).
 */
function releaseLockFile(abs: string, identity: string): void {
  if (fileIdentity(abs) !== identity) return;
  let text: string;
  try {
    text = readFileSync(abs, "utf8").trim();
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return;
    throw ioError("open", abs, err);
  }
  if (text === String(process.pid)) removeIfPresent(abs);
}
