/**
 * The LOCK file identifies the directory, not the path string: a second lock of
 * the same directory through a symlink is Busy, in this process and from another one, and
 * never removes or replaces the holder's LOCK file.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { isShaleError } from "../errors.js";
import { lockFile } from "./node-lock.js";

const tmp = mkdtempSync(join(tmpdir(), "shale-lock-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let n = 0;
let dir: string;
let link: string;
beforeEach(() => {
  n++;
  dir = join(tmp, `db${n}`);
  link = join(tmp, `link${n}`);
  mkdirSync(dir);
  symlinkSync(dir, link, "dir");
});

const isBusy = (f: () => unknown): boolean => {
  try {
    f();
    return false;
  } catch (e) {
    return isShaleError(e, "Busy");
  }
};

/** The built module (a child process or worker cannot load the TypeScript source). */
const builtLock = pathToFileURL(
  join(import.meta.dirname, "..", "..", "dist", "fs", "node-lock.js"),
).href;

describe("LOCK by directory identity, in this process", () => {
  it("a second lock through a symlink is Busy and leaves the holder's LOCK file alone", () => {
    const lock = lockFile(join(dir, "LOCK"));
    expect(isBusy(() => lockFile(join(link, "LOCK")))).toBe(true);
    expect(isBusy(() => lockFile(join(link, ".", "LOCK")))).toBe(true);
    expect(readFileSync(join(dir, "LOCK"), "utf8")).toBe(`${process.pid}\n`);
    lock.release();
    expect(readFileSync(join(dir, "LOCK"), "utf8")).toBe("");
    const again = lockFile(join(link, "LOCK"));
    expect(isBusy(() => lockFile(join(dir, "LOCK")))).toBe(true);
    again.release();
  });

  it("release never removes a LOCK file it did not create", () => {
    const path = join(dir, "LOCK");
    const lock = lockFile(path);
    // Someone removed it, and a new file naming this pid appeared (e.g. another thread's).
    unlinkSync(path);
    writeFileSync(path, `${process.pid}\n`);
    lock.release();
    expect(readFileSync(path, "utf8")).toBe(`${process.pid}\n`);
    unlinkSync(path);
  });
});

describe("LOCK by directory identity, across processes and threads", () => {
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child?.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    }
    child = undefined;
  });

  /** A child that takes `path`'s lock, prints "locked" or "busy", and waits to be killed. */
  function lockInChild(path: string): Promise<string> {
    const script = `
      const { lockFile } = await import(${JSON.stringify(builtLock)});
      try { lockFile(${JSON.stringify(path)}); console.log("locked"); }
      catch (e) { console.log(e && e.code === "Busy" ? "busy" : "error " + e); }
      setTimeout(() => {}, 60000);`;
    child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    return new Promise((resolve, reject) => {
      let out = "";
      child!.stdout!.on("data", (c: Buffer) => {
        out += c.toString();
        if (out.includes("\n")) resolve(out.trim());
      });
      child!.once("exit", (code) => reject(new Error(`child exited (${code}): ${out}`)));
    });
  }

  it("a child locking through a symlink is Busy while we hold it, and leaves our LOCK file", async () => {
    const lock = lockFile(join(dir, "LOCK"));
    expect(await lockInChild(join(link, "LOCK"))).toBe("busy");
    expect(readFileSync(join(dir, "LOCK"), "utf8")).toBe(`${process.pid}\n`);
    lock.release();
  });

  it("we are Busy through a symlink while a child holds the lock", async () => {
    expect(await lockInChild(join(link, "LOCK"))).toBe("locked");
    expect(isBusy(() => lockFile(join(dir, "LOCK")))).toBe(true);
    expect(readFileSync(join(dir, "LOCK"), "utf8").trim()).toBe(String(child!.pid));
  });

  it("of processes racing for one LOCK file, exactly one takes it", async () => {
    const go = join(dir, "go");
    const script = `
      const { existsSync } = await import("node:fs");
      const { lockFile } = await import(${JSON.stringify(builtLock)});
      while (!existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 1));
      try { lockFile(${JSON.stringify(join(dir, "LOCK"))}); console.log("locked"); }
      catch (e) { console.log(e && e.code === "Busy" ? "busy" : "error " + e); }
      setTimeout(() => {}, 60000);`;
    const racers = Array.from({ length: 4 }, () =>
      spawn(process.execPath, ["--input-type=module", "-e", script], {
        stdio: ["ignore", "pipe", "inherit"],
      }),
    );
    try {
      const answers = racers.map(
        (c) =>
          new Promise<string>((resolve) => {
            let out = "";
            c.stdout.on("data", (d: Buffer) => {
              out += d.toString();
              if (out.includes("\n")) resolve(out.trim());
            });
          }),
      );
      await new Promise((r) => setTimeout(r, 300));
      writeFileSync(go, "");
      const got = await Promise.all(answers);
      expect(got.filter((a) => a === "locked")).toHaveLength(1);
      expect(got.filter((a) => a === "busy")).toHaveLength(3);
      expect(existsSync(join(dir, "LOCK.claim"))).toBe(false);
    } finally {
      for (const c of racers) c.kill("SIGKILL");
    }
  });

  it.runIf(process.platform === "linux")(
    "a worker thread of this process is Busy while the main thread holds it (Linux: /proc/self/fd)",
    async () => {
      const lock = lockFile(join(dir, "LOCK"));
      const source = `
        const { parentPort, workerData } = require("node:worker_threads");
        import(workerData.module).then(({ lockFile }) => {
          try { lockFile(workerData.path); parentPort.postMessage("locked"); }
          catch (e) { parentPort.postMessage(e && e.code === "Busy" ? "busy" : "error " + e); }
        });`;
      const worker = new Worker(source, {
        eval: true,
        workerData: { module: builtLock, path: join(link, "LOCK") },
      });
      const answer = await new Promise<string>((resolve, reject) => {
        worker.once("message", resolve);
        worker.once("error", reject);
      });
      await worker.terminate();
      expect(answer).toBe("busy");
      expect(readFileSync(join(dir, "LOCK"), "utf8")).toBe(`${process.pid}\n`);
      lock.release();
    },
  );
});
