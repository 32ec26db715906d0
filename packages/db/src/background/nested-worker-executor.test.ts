import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { type FileSystem, NodeFileSystem, ShaleError } from "@shale/base";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DB } from "../db.js";
import type { BackgroundWorkerLike } from "./nested-worker-executor.js";
import { decodeMailboxMessage, encodeMailboxMessage } from "./result-mailbox.js";

const fixture = new URL("../test-fixtures/nested-background-worker.mjs", import.meta.url);

/**
 * The node file system posing as one other workers can reach (as OPFS is in a browser): its
 * background workers are Node worker threads running serveBackgroundJobs. Not an instance of
 * NodeFileSystem (that would choose Node's WorkerExecutor). Counts the tables this thread
 * writes.
 */
interface SharedNodeFs extends FileSystem {
  started: number;
  tablesWrittenHere: number;
}
function sharedNodeFs(start: () => BackgroundWorkerLike | undefined): SharedNodeFs {
  const inner = new NodeFileSystem();
  const extra = {
    started: 0,
    tablesWrittenHere: 0,
    startBackgroundWorker(): BackgroundWorkerLike | undefined {
      extra.started++;
      return start();
    },
    shareWithWorker(): { handle: unknown; transfer: readonly unknown[] } {
      return { handle: null, transfer: [] };
    },
    openWritable(path: string, options?: Parameters<NodeFileSystem["openWritable"]>[1]) {
      if (path.endsWith(".sst")) extra.tablesWrittenHere++;
      return inner.openWritable(path, options);
    },
  };
  return new Proxy(inner, {
    getPrototypeOf: () => Object.prototype,
    get(target, name) {
      if (name in extra) return extra[name as keyof typeof extra];
      const v = (target as unknown as Record<string | symbol, unknown>)[name];
      return typeof v === "function" ? v.bind(target) : v;
    },
  }) as unknown as SharedNodeFs;
}

/**
 * Node worker threads that count, in `loaded`, those whose script has run (it then takes
 * `init` at once): a test that must see every job in a worker waits for them before its
 * synchronous loop, since a job a stalled writer finds with an unstarted worker runs here.
 */
function countingWorkers(): { start: () => BackgroundWorkerLike; loaded: () => number } {
  let loaded = 0;
  return {
    start: () => {
      const worker = new Worker(fixture, { execArgv: [] });
      worker.on("message", (m: { type?: string }) => {
        if (m.type === "loaded") loaded++;
      });
      return worker;
    },
    loaded: () => loaded,
  };
}

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
  await new Promise((resolve) => setTimeout(resolve, 50));
}

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), "shale-nested-"));
  dirs.push(d);
  return d;
}

const key = (i: number) => `key${String(i).padStart(7, "0")}`;
const value = (i: number) => `value-${i}-${"v".repeat(60)}`;
const text = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : Buffer.from(b).toString();

async function fillAndCheck(fs: SharedNodeFs, n: number): Promise<DB> {
  const dir = scratch();
  const db = await DB.open(dir, {
    fs,
    writeBufferSize: 64 * 1024,
    targetFileSizeBase: 16 * 1024,
    maxBytesForLevelBase: 64 * 1024,
  });
  // A tight synchronous loop: flushes land through the shared `finished` cell and mailbox.
  for (let i = 0; i < n; i++) db.put(key(i), value(i));
  await db.flush();
  await db.compactRange();
  for (let i = 0; i < n; i += 97) expect(text(db.get(key(i)))).toBe(value(i));
  await db.close();
  const again = await DB.open(dir);
  let count = 0;
  for (const _ of again.iterator()) count++;
  expect(count).toBe(n);
  await again.close();
  return db;
}

describe("NestedWorkerExecutor (browser transport, Node worker threads standing in)", () => {
  it("runs flushes and compactions in the nested workers; results longer than the mailbox arrive whole", async () => {
    const workers = countingWorkers();
    const fs = sharedNodeFs(workers.start);
    const warn = vi.spyOn(console, "warn");
    const dir = scratch();
    const db = await DB.open(dir, {
      fs,
      writeBufferSize: 64 * 1024,
      targetFileSizeBase: 8 * 1024,
      maxBytesForLevelBase: 64 * 1024,
    });
    await until(() => workers.loaded() === fs.started);
    for (let i = 0; i < 20_000; i++) db.put(key(i), value(i));
    await db.flush();
    await db.compactRange();
    // Many output tables: the compaction's result is several 4 KiB mailbox chunks.
    const files =
      Number(db.getProperty("shale.num-files-at-level1")) +
      Number(db.getProperty("shale.num-files-at-level2"));
    expect(files).toBeGreaterThan(40);
    for (let i = 0; i < 20_000; i += 97) expect(text(db.get(key(i)))).toBe(value(i));
    await db.close();
    expect(fs.started).toBeGreaterThanOrEqual(1);
    expect(fs.tablesWrittenHere).toBe(0);
    expect(warn).not.toHaveBeenCalled();
    const again = await DB.open(dir);
    let count = 0;
    for (const _ of again.iterator()) count++;
    expect(count).toBe(20_000);
    await again.close();
  });

  it("a scope without nested workers runs the jobs inline, with one warning naming why", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const fs = sharedNodeFs(() => {
      throw ShaleError.notSupported("this scope has no Worker: nested workers are unavailable");
    });
    await fillAndCheck(fs, 5000);
    expect(fs.tablesWrittenHere).toBeGreaterThan(0);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(/nested workers are unavailable/);
  });

  it("a worker whose script fails to load: its jobs and every later one run inline, one warning", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const fs = sharedNodeFs(
      () => new Worker(new URL("../test-fixtures/no-such-worker.mjs", import.meta.url)),
    );
    await fillAndCheck(fs, 5000);
    expect(fs.tablesWrittenHere).toBeGreaterThan(0);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(/could not run it/);
  });

  it("a file system set to start no worker runs the jobs inline silently", async () => {
    const warn = vi.spyOn(console, "warn");
    const fs = sharedNodeFs(() => undefined);
    await fillAndCheck(fs, 3000);
    expect(fs.tablesWrittenHere).toBeGreaterThan(0);
    expect(warn).not.toHaveBeenCalled();
  });

  it("a worker that gets no message while the writer blocks (as in Chromium): stalled jobs run here at once, later ones in the worker, no warning", async () => {
    // Messages reach the worker only when this thread's event loop turns: the first flushes
    // of a synchronous put loop find their worker not started.
    const lazy = (): BackgroundWorkerLike => {
      const worker = new Worker(fixture, { execArgv: [] });
      return {
        postMessage: (message, transfer) =>
          setImmediate(() => worker.postMessage(message, transfer as never)),
        terminate: () => worker.terminate(),
        on: (type, listener) => worker.on(type, listener),
      };
    };
    const warn = vi.spyOn(console, "warn");
    const fs = sharedNodeFs(lazy);
    const dir = scratch();
    const db = await DB.open(dir, {
      fs,
      writeBufferSize: 64 * 1024,
      maxWriteBufferNumber: 2,
      targetFileSizeBase: 16 * 1024,
      maxBytesForLevelBase: 64 * 1024,
    });
    for (let i = 0; i < 5000; i++) db.put(key(i), value(i));
    // The stalled jobs ran here (no clock is asserted: a loaded machine stretches the loop).
    const here = fs.tablesWrittenHere;
    expect(here).toBeGreaterThan(0);
    // The event loop turns: the worker starts and takes what comes next.
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (let i = 5000; i < 10_000; i++) {
      db.put(key(i), value(i));
      if (i % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await db.flush();
    await db.compactRange();
    expect(fs.tablesWrittenHere).toBe(here);
    for (let i = 0; i < 10_000; i += 97) expect(text(db.get(key(i)))).toBe(value(i));
    await db.close();
    expect(warn).not.toHaveBeenCalled();
    const again = await DB.open(dir);
    let count = 0;
    for (const _ of again.iterator()) count++;
    expect(count).toBe(10_000);
    await again.close();
  });

  it("mailbox messages keep byte arrays and nested values", () => {
    const m = { id: 3, ok: true, file: { smallest: new Uint8Array([0, 1, 255]), n: 1.5, s: "x" } };
    expect(decodeMailboxMessage(encodeMailboxMessage(m))).toEqual(m);
  });
});
