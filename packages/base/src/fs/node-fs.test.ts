import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { ErrorCode, isShaleError } from "../errors.js";
import { thrown } from "../testing/expect-error.js";
import { NodeFileSystem } from "./node-fs.js";

const isBusy = (fn: () => unknown): boolean => isShaleError(thrown(fn), ErrorCode.Busy);

let root: string;
const fs = new NodeFileSystem();

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "shale-node-fs-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("NodeFileSystem write buffering", () => {
  it("keeps small appends in user space until flush", () => {
    const path = join(root, "f");
    const file = fs.openWritable(path);
    file.append(new Uint8Array(1000).fill(1));
    expect(statSync(path).size).toBe(0);
    file.flush();
    expect(statSync(path).size).toBe(1000);
    file.close();
  });

  it("writes straight through with bufferSize 0", () => {
    const path = join(root, "f");
    const file = fs.openWritable(path, { bufferSize: 0 });
    file.append(new Uint8Array(3));
    expect(statSync(path).size).toBe(3);
    file.close();
  });

  it("writes appends larger than the buffer at once, after what was buffered", () => {
    const path = join(root, "f");
    const file = fs.openWritable(path, { bufferSize: 8 });
    file.append(new Uint8Array([1, 2, 3]));
    expect(statSync(path).size).toBe(0);
    file.append(new Uint8Array(20).fill(9));
    expect(statSync(path).size).toBe(23);
    expect([...readFileSync(path).subarray(0, 4)]).toEqual([1, 2, 3, 9]);
    file.close();
  });

  it("returns plain Uint8Arrays from readFile", () => {
    const path = join(root, "f");
    fs.writeFile(path, new Uint8Array([1, 2]));
    expect(Object.getPrototypeOf(fs.readFile(path))).toBe(Uint8Array.prototype);
  });
});

describe("NodeFileSystem after a failed write", () => {
  const tmpfs = mkdtempSync(join(tmpdir(), "shale-node-fs-full-"));
  let mountError: string | undefined;
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", tmpfs], { stdio: "pipe" });
  } catch (err) {
    mountError = (err as Error).message.split("\n")[0];
    console.log(`NodeFileSystem full-disk test skipped: cannot mount a tmpfs (${mountError})`);
  }
  afterAll(() => {
    if (mountError === undefined) execFileSync("umount", ["-l", tmpfs]);
    rmSync(tmpfs, { recursive: true, force: true });
  });

  it.skipIf(process.platform !== "linux")(
    "is failed: /dev/full's ENOSPC once, then every write refused, close quiet",
    () => {
      const file = fs.openWritable("/dev/full", { bufferSize: 16 });
      file.append(new Uint8Array(8).fill(1));
      const first = thrown(() => file.flush());
      expect(isShaleError(first, ErrorCode.IOError)).toBe(true);
      expect((first as Error).cause).toMatchObject({ code: "ENOSPC" });
      expect(() => file.flush()).toThrow(/an earlier write failed/);
      expect(() => file.append(new Uint8Array(1))).toThrow(/an earlier write failed/);
      expect(() => file.sync()).toThrow(/an earlier write failed/);
      expect(file.size).toBe(0);
      file.close();
    },
  );

  it.skipIf(mountError !== undefined)(
    "on a full tmpfs, the file holds exactly the accepted prefix, never a byte twice",
    () => {
      const path = join(tmpfs, "f");
      const file = fs.openWritable(path, { bufferSize: 10_000 });
      const expected: number[] = [];
      let failed = false;
      for (let i = 0; i < 100 && !failed; i++) {
        const chunk = new Uint8Array(3_001).map((_, j) => (i * 7 + j) & 0xff);
        expected.push(...chunk);
        try {
          file.append(chunk);
        } catch {
          failed = true;
        }
      }
      expect(failed).toBe(true);
      execFileSync("mount", ["-o", "remount,size=1m", tmpfs]);
      expect(() => file.flush()).toThrow(/an earlier write failed/);
      file.close();
      const onDisk = readFileSync(path);
      expect(onDisk.length).toBe(file.size);
      expect([...onDisk]).toEqual(expected.slice(0, onDisk.length));
    },
  );
});

describe("NodeFileSystem lock across processes", () => {
  let child: ChildProcess | undefined;

  afterEach(async () => {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child?.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    }
    child = undefined;
  });

  it("is Busy while the pid in the LOCK file is alive, and taken over once it died", async () => {
    child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    const pid = child.pid;
    expect(pid).toBeGreaterThan(0);
    const path = join(root, "LOCK");
    writeFileSync(path, `${pid}\n`);
    expect(isBusy(() => fs.lock(path))).toBe(true);

    const exited = new Promise((resolve) => child?.once("exit", resolve));
    child.kill("SIGKILL");
    await exited; // reaped: no zombie answers kill(pid, 0)

    const lock = fs.lock(path);
    expect(readFileSync(path, "utf8").trim()).toBe(String(process.pid));
    expect(isBusy(() => fs.lock(path))).toBe(true);
    lock.release();
    expect(readFileSync(path, "utf8")).toBe("");
  });

  it("takes over a LOCK file naming this process that it does not hold", () => {
    const path = join(root, "LOCK");
    writeFileSync(path, `${process.pid}\n`);
    const lock = fs.lock(path);
    expect(readFileSync(path, "utf8")).toBe(`${process.pid}\n`);
    expect(isBusy(() => fs.lock(path))).toBe(true); // held now, by this process
    lock.release();
    expect(readFileSync(path, "utf8")).toBe("");
    fs.lock(path).release(); // free again
  });

  it("takes over an empty or unparsable LOCK file in place, and never removes it", () => {
    const path = join(root, "LOCK");
    for (const text of ["", "not a pid\n"]) {
      writeFileSync(path, text);
      const inode = statSync(path).ino;
      const lock = fs.lock(path);
      expect(readFileSync(path, "utf8")).toBe(`${process.pid}\n`);
      lock.release();
      expect(readFileSync(path, "utf8")).toBe("");
      expect(statSync(path).ino).toBe(inode);
    }
  });

  it("treats a fresh unparsable claim file as a contender, an old one as stale", () => {
    const path = join(root, "LOCK");
    writeFileSync(`${path}.claim`, "");
    expect(isBusy(() => fs.lock(path))).toBe(true);
    const past = new Date(Date.now() - 60_000);
    utimesSync(`${path}.claim`, past, past);
    fs.lock(path).release();
    expect(fs.exists(`${path}.claim`)).toBe(false);
  });

  it("treats relative and absolute paths to the same file as one lock", () => {
    const path = join(root, "LOCK");
    const lock = fs.lock(path);
    expect(isBusy(() => fs.lock(`${root}/./LOCK`))).toBe(true);
    lock.release();
  });

  it("release leaves a LOCK file that another process has since taken", () => {
    const path = join(root, "LOCK");
    const lock = fs.lock(path);
    writeFileSync(path, "1\n");
    lock.release();
    expect(readFileSync(path, "utf8")).toBe("1\n");
  });
});
