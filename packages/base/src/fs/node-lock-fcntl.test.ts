/**
 * The LOCK against the locks RocksDB's kind of engine takes (Linux, through /proc/locks): a
 * child process holds a POSIX record lock (fcntl F_SETLK, what RocksDB's PosixEnv takes),
 * an OFD lock (F_OFD_SETLK) or a flock on the LOCK file; `lockFile` is then `Busy`, naming
 * the directory and the holder, and leaves the LOCK file where it was (same inode, same
 * bytes: removing it would let a second RocksDB lock a new inode). Once the child lets go,
 * the lock is taken, in place.
 *
 * Holders: perl (part of every Debian, `perl-base`), python3 when installed, a small C
 * program when a C compiler is (.ci/run installs g++), and util-linux's flock(1).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { arch, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ShaleError } from "../errors.js";
import { lockFile } from "./node-lock.js";

const tmp = mkdtempSync(join(tmpdir(), "shale-lock-fcntl-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const hasProcLocks = existsSync("/proc/locks");
const onPath = (tool: string): boolean =>
  spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).status === 0;

/** perl's fcntl(F_SETLK) with Linux's 64-bit `struct flock` (x64, arm64): type, whence, start, len, pid. */
const PERL_LOCK = `use Fcntl; open(my $fh, "+>>", $ARGV[0]) or die "open: $!";
my $fl = pack("s s x4 q q i x4", F_WRLCK, 0, 0, 0, 0);
fcntl($fh, F_SETLK, $fl) or die "fcntl: $!";
$| = 1; print "locked\\n"; while (<STDIN>) {}`;

const PYTHON_LOCK = `import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
print("locked", flush=True)
sys.stdin.read()`;

/** Takes a whole-file write lock, POSIX ("posix") or OFD ("ofd"), and waits for stdin to end. */
const C_LOCK = `#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char** argv) {
  if (argc != 3) return 2;
  int fd = open(argv[1], O_RDWR | O_CREAT, 0644);
  if (fd < 0) { perror("open"); return 1; }
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  if (fcntl(fd, strcmp(argv[2], "ofd") == 0 ? F_OFD_SETLK : F_SETLK, &fl) != 0) { perror("fcntl"); return 1; }
  printf("locked\\n");
  fflush(stdout);
  char c;
  while (read(0, &c, 1) > 0) {}
  return 0;
}
`;

/** The C holder, compiled once with the first compiler found; or why there is none. */
function compileCHolder(): string | { reason: string } {
  const compiler = ["cc", "gcc", "g++"].find(onPath);
  if (compiler === undefined) return { reason: "no C compiler (cc, gcc, g++) on the PATH" };
  const source = join(tmp, "hold-lock.c");
  const binary = join(tmp, "hold-lock");
  writeFileSync(source, C_LOCK);
  const args = compiler === "g++" ? ["-x", "c++", source, "-o", binary] : [source, "-o", binary];
  const r = spawnSync(compiler, args, { encoding: "utf8", timeout: 60_000 });
  return r.status === 0 ? binary : { reason: `${compiler} failed: ${r.stderr}` };
}

interface Holder {
  name: string;
  kind: "POSIX" | "OFDLCK" | "FLOCK";
  /** Why this holder cannot run here, or undefined. */
  unavailable: () => string | undefined;
  command: (path: string) => [string, string[]];
}

let cHolder: string | { reason: string } | undefined;
const cBinary = (): string | { reason: string } => (cHolder ??= compileCHolder());
const cUnavailable = () => {
  const b = cBinary();
  return typeof b === "string" ? undefined : b.reason;
};

const HOLDERS: Holder[] = [
  {
    name: "perl fcntl(F_SETLK)",
    kind: "POSIX",
    unavailable: () =>
      !onPath("perl")
        ? "perl is not on the PATH"
        : arch() !== "x64" && arch() !== "arm64"
          ? `struct flock is packed for 64-bit Linux, not ${arch()}`
          : undefined,
    command: (path) => ["perl", ["-e", PERL_LOCK, path]],
  },
  {
    name: "python3 fcntl.lockf",
    kind: "POSIX",
    unavailable: () => (onPath("python3") ? undefined : "python3 is not on the PATH"),
    command: (path) => ["python3", ["-c", PYTHON_LOCK, path]],
  },
  {
    name: "C fcntl(F_SETLK)",
    kind: "POSIX",
    unavailable: cUnavailable,
    command: (path) => [cBinary() as string, [path, "posix"]],
  },
  {
    name: "C fcntl(F_OFD_SETLK)",
    kind: "OFDLCK",
    unavailable: cUnavailable,
    command: (path) => [cBinary() as string, [path, "ofd"]],
  },
  {
    name: "flock(1)",
    kind: "FLOCK",
    unavailable: () => (onPath("flock") ? undefined : "flock (util-linux) is not on the PATH"),
    command: (path) => ["flock", ["-x", path, "-c", "echo locked; cat"]],
  },
];

let child: ChildProcess | undefined;
afterEach(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child?.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }
  child = undefined;
});

/** Starts `command` and resolves once it printed "locked". */
function hold([file, args]: [string, string[]]): Promise<ChildProcess> {
  const c = spawn(file, args, { stdio: ["pipe", "pipe", "pipe"] });
  child = c;
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    c.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
    });
    c.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("locked")) resolve(c);
    });
    c.once("error", reject);
    c.once("exit", (code) => reject(new Error(`${file} exited (${code}): ${out}${err}`)));
  });
}

/** Ends the holder's stdin (it exits, and the kernel drops its lock) and waits. */
async function letGo(c: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => c.once("exit", resolve));
  c.stdin?.end();
  await exited;
}

function busyError(f: () => unknown): ShaleError {
  try {
    f();
  } catch (e) {
    if (ShaleError.isInstance(e) && e.code === "Busy") return e;
    throw e;
  }
  throw new Error("expected Busy, but the lock was taken");
}

let n = 0;
describe.runIf(hasProcLocks)("LOCK held through a kernel file lock (Linux /proc/locks)", () => {
  for (const holder of HOLDERS) {
    it(`${holder.name}: Busy naming the holder; the LOCK file stays; free once released`, async (ctx) => {
      const reason = holder.unavailable();
      if (reason !== undefined) {
        console.log(`skipped ${holder.name}: ${reason}`);
        ctx.skip();
      }
      const dir = join(tmp, `db${++n}`);
      mkdirSync(dir);
      const path = join(dir, "LOCK");
      const c = await hold(holder.command(path));
      // A RocksDB that has run for a while: its empty LOCK is not a file just being created.
      const past = new Date(Date.now() - 60_000);
      utimesSync(path, past, past);
      const inode = statSync(path).ino;
      const bytes = readFileSync(path);

      const err = busyError(() => lockFile(path));
      expect(err.message).toContain(dir);
      if (holder.kind === "OFDLCK") expect(err.message).toContain("pid not reported");
      else expect(err.message).toContain(`process ${c.pid} holds`);
      expect(err.message).toContain(
        { POSIX: "POSIX record lock", OFDLCK: "open-file-description lock", FLOCK: "flock" }[
          holder.kind
        ],
      );
      // A second look changes nothing either.
      busyError(() => lockFile(join(dir, ".", "LOCK")));
      expect(statSync(path).ino).toBe(inode);
      expect(readFileSync(path)).toEqual(bytes);
      expect(existsSync(`${path}.claim`)).toBe(false);

      await letGo(c);
      const lock = lockFile(path);
      expect(readFileSync(path, "utf8")).toBe(`${process.pid}\n`);
      lock.release();
      expect(statSync(path).ino).toBe(inode);
      expect(readFileSync(path, "utf8")).toBe("");
    });
  }
});
