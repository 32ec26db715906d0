/**
 * The LOCK of a database directory: a second open of the same directory by any path — here
 * through a symlink — is Busy and leaves the first handle's LOCK in place, so the first
 * handle's writes all survive; and a directory RocksDB has open (its fcntl lock on LOCK,
 * seen through Linux's /proc/locks) is Busy too, with its LOCK file untouched (same inode),
 * until RocksDB lets go. Holders: RocksDB 7.8.3's `ldb load` (waits on stdin with the
 * database open) and `db_bench fillrandom` where installed, and perl's fcntl(F_SETLK) (part
 * of every Debian) everywhere.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from "node:fs";
import { arch, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DB } from "./db.js";

const tmp = mkdtempSync(join(tmpdir(), "shale-lock-db-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("the LOCK of a database directory", () => {
  it("a second open through a symlink is Busy, and the LOCK survives", async () => {
    const dir = join(tmp, "db");
    const link = join(tmp, "link");
    const db = await DB.open(dir);
    symlinkSync(dir, link, "dir");
    for (let i = 0; i < 200; i++) db.put(`k${i}`, `v${i}`, { sync: true });
    await expect(DB.open(link)).rejects.toMatchObject({ code: "Busy" });
    await expect(DB.open(`${link}/.`)).rejects.toMatchObject({ code: "Busy" });
    expect(readFileSync(join(dir, "LOCK"), "utf8")).toBe(`${process.pid}\n`);
    const inode = statSync(join(dir, "LOCK")).ino;
    for (let i = 200; i < 400; i++) db.put(`k${i}`, `v${i}`, { sync: true });
    await db.flush();
    await db.close();
    // Released in place, as RocksDB leaves its LOCK: emptied, never removed.
    expect(readFileSync(join(dir, "LOCK"), "utf8")).toBe("");
    expect(statSync(join(dir, "LOCK")).ino).toBe(inode);
    const again = await DB.open(link);
    for (let i = 0; i < 400; i++) expect(again.get(`k${i}`), `k${i}`).toBeDefined();
    await again.close();
  });
});

const onPath = (tool: string): boolean =>
  spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).status === 0;
const noProcLocks = existsSync("/proc/locks") ? undefined : "no /proc/locks (not Linux)";

/** perl's fcntl(F_SETLK) with Linux's 64-bit `struct flock` (x64, arm64). */
const PERL_LOCK = `use Fcntl; open(my $fh, "+>>", $ARGV[0]) or die "open: $!";
my $fl = pack("s s x4 q q i x4", F_WRLCK, 0, 0, 0, 0);
fcntl($fh, F_SETLK, $fl) or die "fcntl: $!";
$| = 1; print "locked\\n"; while (<STDIN>) {}`;

interface RocksHolder {
  name: string;
  unavailable: () => string | undefined;
  /** The command; it holds the LOCK of `dir` until its stdin ends (or it is killed). */
  command: (dir: string) => [string, string[]];
  /** True once the holder has the lock. */
  ready: (out: string, dir: string) => boolean;
  /** Ends the holder gracefully if it can (stdin), else kills it. */
  letGo: (c: ChildProcess) => void;
  /** Keys the holder wrote, which shale must read once it opens. */
  wrote: string[];
  /** The database is quiet while held (a read-only open beside it is deterministic). */
  quiet: boolean;
}

/** True while /proc/locks lists a POSIX lock on `dir`/LOCK (RocksDB has the database open). */
function rocksHoldsLock(dir: string): boolean {
  let ino: number;
  try {
    ino = statSync(join(dir, "LOCK")).ino;
  } catch {
    return false;
  }
  return readFileSync("/proc/locks", "utf8")
    .split("\n")
    .some((l) => / POSIX /.test(l) && l.includes(`:${ino} `));
}

/** True if a WAL (`*.log`) in `dir` holds bytes. */
function walHasData(dir: string): boolean {
  try {
    return readdirSync(dir).some((f) => f.endsWith(".log") && statSync(join(dir, f)).size > 0);
  } catch {
    return false;
  }
}

const HOLDERS: RocksHolder[] = [
  {
    name: "RocksDB 7.8.3 ldb load",
    unavailable: () => noProcLocks ?? (onPath("ldb") ? undefined : "ldb is not on the PATH"),
    command: (dir) => ["ldb", [`--db=${dir}`, "--create_if_missing", "load"]],
    ready: (_out, dir) => rocksHoldsLock(dir),
    letGo: (c) => {
      c.stdin?.end("alpha ==> 1\nbeta ==> 2\n");
    },
    wrote: ["alpha", "beta"],
    quiet: true,
  },
  {
    name: "RocksDB 7.8.3 db_bench fillrandom",
    unavailable: () =>
      noProcLocks ?? (onPath("db_bench") ? undefined : "db_bench is not on the PATH"),
    command: (dir) => [
      "nice",
      [
        "db_bench",
        "--benchmarks=fillrandom",
        `--db=${dir}`,
        "--num=100000000",
        "--value_size=16",
        "--compression_type=none",
        "--stats_interval_seconds=0",
      ],
    ],
    // db_bench opens the database, then destroys it and opens it again for a benchmark that
    // wants a fresh one (fillrandom): the first LOCK is deleted and a new one made. Ready
    // once the fill writes its WAL, after the last open.
    ready: (_out, dir) => rocksHoldsLock(dir) && walHasData(dir),
    letGo: (c) => {
      c.kill("SIGKILL");
    },
    wrote: [],
    quiet: false,
  },
  {
    name: "perl fcntl(F_SETLK)",
    unavailable: () =>
      noProcLocks ??
      (!onPath("perl")
        ? "perl is not on the PATH"
        : arch() !== "x64" && arch() !== "arm64"
          ? `struct flock is packed for 64-bit Linux, not ${arch()}`
          : undefined),
    command: (dir) => ["perl", ["-e", PERL_LOCK, join(dir, "LOCK")]],
    ready: (out) => out.includes("locked"),
    letGo: (c) => {
      c.stdin?.end();
    },
    wrote: [],
    quiet: false,
  },
];

describe("a directory RocksDB has open (its fcntl lock on LOCK)", () => {
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child?.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    }
    child = undefined;
  });

  /** Starts the holder and resolves once it has the lock (polling for ldb and db_bench). */
  function hold(holder: RocksHolder, dir: string): Promise<ChildProcess> {
    const [file, args] = holder.command(dir);
    const c = spawn(file, args, { stdio: ["pipe", "pipe", "pipe"] });
    child = c;
    return new Promise((resolve, reject) => {
      let out = "";
      c.stdout?.on("data", (d: Buffer) => {
        out += d.toString();
      });
      c.stderr?.on("data", (d: Buffer) => {
        out += d.toString();
      });
      const poll = setInterval(() => {
        if (holder.ready(out, dir)) {
          clearInterval(poll);
          resolve(c);
        }
      }, 20);
      c.once("error", (e) => {
        clearInterval(poll);
        reject(e);
      });
      c.once("exit", (code) => {
        clearInterval(poll);
        reject(new Error(`${file} exited (${code}) before holding the lock: ${out.slice(-2000)}`));
      });
    });
  }

  for (const holder of HOLDERS) {
    it(`${holder.name}: open is Busy naming the directory and pid; LOCK untouched; opens once released`, async (ctx) => {
      const reason = holder.unavailable();
      if (reason !== undefined) {
        console.log(`skipped ${holder.name}: ${reason}`);
        ctx.skip();
      }
      const dir = join(tmp, holder.name.replace(/[^a-z0-9]+/gi, "-"));
      mkdirSync(dir);
      const c = await hold(holder, dir);
      const lock = join(dir, "LOCK");
      // A RocksDB that has run for a while: its empty LOCK is not a file just being created.
      const past = new Date(Date.now() - 60_000);
      utimesSync(lock, past, past);
      const inode = statSync(lock).ino;

      for (const options of [{}, { createIfMissing: false }]) {
        const open = DB.open(dir, options);
        await expect(open).rejects.toMatchObject({ code: "Busy" });
        const message = await open.catch((e: Error) => e.message);
        expect(message).toContain(dir);
        expect(message).toContain(`process ${c.pid} holds a POSIX record lock`);
      }
      // Readers keep coexisting with the one writer, as beside a shale writer.
      if (holder.quiet) {
        // RocksDB takes its lock before it writes CURRENT: wait for the database to exist.
        for (let i = 0; i < 200 && !existsSync(join(dir, "CURRENT")); i++)
          await new Promise((r) => setTimeout(r, 50));
        const reader = await DB.open(dir, { readOnly: true });
        await reader.close();
      }
      expect(existsSync(lock)).toBe(true);
      expect(statSync(lock).ino).toBe(inode);
      expect(statSync(lock).size).toBe(0);

      const exited = new Promise((resolve) => c.once("exit", resolve));
      holder.letGo(c);
      await exited;
      const db = await DB.open(dir, { createIfMissing: holder.wrote.length === 0 });
      for (const key of holder.wrote) expect(db.get(key), key).toBeDefined();
      db.put("from-shale", "1");
      await db.close();
      expect(statSync(lock).ino).toBe(inode);
    });
  }
});
