/**
 * The LOCK file behind `NodeFileSystem.lock` (node-fs.ts). Node has no `flock`, so:
 *
 * 1. In this JS realm, a set of held absolute paths: a second `lock` is `Busy`.
 * 2. Across processes, the file is created with O_EXCL ("wx") and holds the owner's pid.
 *    If it exists, its pid is read: a live process other than us (`kill(pid, 0)` succeeds
 *    or fails with EPERM) means `Busy`. Otherwise the lock is stale (its owner died without
 *    `release`, e.g. SIGKILL): the file is removed and creation retried once with O_EXCL,
 *    so of two contenders only one wins the new file.
 * 3. An unparsable (e.g. still empty) file younger than 2 s is taken as a contender
 *    between create and write: `Busy`; older, it is stale.
 *
 * ```
 * LOCK file: the owner's pid in decimal ASCII, then "\n"      e.g. "4242\n"
 * ```
 *
 * Limits (pid reuse, two contenders on one stale file, network file systems, worker
 * threads): see `NodeFileSystem.lock`.
 */
import { openSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { resolve } from "node:path";
import { ShaleError } from "../errors.js";
import type { FileLock } from "./file-system.js";
import { closeFd, errnoOf, ioError, writeFully } from "./node-io.js";

/** An unparsable LOCK file younger than this may be a contender mid-creation: Busy. */
const LOCK_CREATION_GRACE_MS = 2000;

/** Absolute paths of the LOCK files held by this JS realm (main thread or one worker). */
const heldLocks = new Set<string>();

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
 * or an unparsable file young enough to be mid-creation) or "stale".
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
    const valid = pid <= 0x7fffffff && pid !== process.pid;
    return valid && processAlive(pid) ? "live" : "stale";
  }
  try {
    return Date.now() - statSync(abs).mtimeMs < LOCK_CREATION_GRACE_MS ? "live" : "stale";
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return "free";
    throw ioError("stat", abs, err);
  }
}

/** Creates the LOCK file with O_EXCL and our pid; false if it already exists. */
function tryCreateLockFile(abs: string): boolean {
  let fd: number;
  try {
    fd = openSync(abs, "wx");
  } catch (err) {
    if (errnoOf(err) === "EEXIST") return false;
    throw ioError("open", abs, err);
  }
  const pid = new TextEncoder().encode(`${process.pid}\n`);
  try {
    writeFully(fd, pid, 0, pid.length);
  } catch (err) {
    closeFd(fd, abs);
    removeIfPresent(abs);
    throw ioError("write", abs, err);
  }
  closeFd(fd, abs);
  return true;
}

/** Takes the LOCK file at `path` (see the file comment and `NodeFileSystem.lock`). */
export function lockFile(path: string): FileLock {
  const abs = resolve(path);
  if (heldLocks.has(abs)) throw ShaleError.busy("lock is held by this process", path);
  let acquired = false;
  for (let attempt = 0; attempt < 3; attempt++) {
    if ((acquired = tryCreateLockFile(abs))) break;
    const owner = lockOwnerState(abs);
    if (owner === "live") throw ShaleError.busy("lock is held by another process", path);
    if (owner === "stale") removeIfPresent(abs);
  }
  if (!acquired) throw ShaleError.busy("lock is contended", path);
  heldLocks.add(abs);
  let held = true;
  return {
    path,
    release: () => {
      if (!held) return;
      held = false;
      heldLocks.delete(abs);
      releaseLockFile(abs);
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

/** Removes the LOCK file if it still names us (someone may have removed and retaken it). */
function releaseLockFile(abs: string): void {
  let text: string;
  try {
    text = readFileSync(abs, "utf8").trim();
  } catch (err) {
    if (errnoOf(err) === "ENOENT") return;
    throw ioError("open", abs, err);
  }
  if (text === String(process.pid)) removeIfPresent(abs);
}
