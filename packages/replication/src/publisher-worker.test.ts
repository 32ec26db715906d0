/**
 * publishChanges with `worker: true` against a real `nats-server -js` (skipped, with the
 * reason printed, where it is missing):
 * - the feed is published while the database's thread is held by a synchronous loop of
 *   writes (a watcher process sees every operation stored before that thread lets go);
 * - the stream holds every batch once, in order, across a restart of the publisher, and a
 *   follower converges;
 * - a database whose WALs lack its beginning starts after a checkpoint;
 * - a publish JetStream refuses stops the publisher with its error;
 * - a database off the node file system is NotSupported;
 * - errors keep their code across the thread.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryFileSystem, ShaleError } from "@shale/base";
import { DB, WriteBatch } from "@shale/db";
import { connect } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { followChanges } from "./follower.js";
import { type NatsServer, natsMissing, startNatsServer } from "./nats-server.test-support.js";
import { publishChanges } from "./publisher.js";
import { fromWire, toWire } from "./publisher-worker-messages.js";

const missing = natsMissing();
if (missing !== undefined) console.log(`publisher worker tests: skipped — ${missing}`);

const dbOptions = { mergeOperator: "stringappend" as const, walTtlSeconds: 3600 };

/**
 * A process that watches the stream and creates `done` (holding the last sequence stored)
 * once its last message reaches sequence `ops` (a packed batch: sequence ‖ count ‖ ...).
 */
function watch(url: string, stream: string, ops: number, done: string): ChildProcess {
  const code = `
    const { writeFileSync } = require("node:fs");
    const { connect } = require("nats");
    const [url, stream, ops, done] = process.argv.slice(1);
    (async () => {
      const nc = await connect({ servers: url });
      const jsm = await nc.jetstreamManager();
      for (;;) {
        const last = (await jsm.streams.info(stream)).state.last_seq;
        if (last > 0) {
          const m = await jsm.streams.getMessage(stream, { seq: last });
          const d = Buffer.from(m.data.buffer, m.data.byteOffset, m.data.length);
          const end = d.readUInt32LE(0) + d.readUInt32LE(4) * 2 ** 32 + d.readUInt32LE(8) - 1;
          if (end >= Number(ops)) {
            writeFileSync(done, String(end));
            break;
          }
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      await nc.close();
    })();
  `;
  return spawn(process.execPath, ["-e", code, url, stream, String(ops), done], {
    stdio: "inherit",
  });
}

/** Waits without turning the event loop (the thread stays held) until `path` exists. */
function waitHeldFor(path: string, ms: number): boolean {
  const nap = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (existsSync(path)) return true;
    Atomics.wait(nap, 0, 0, 10);
  }
  return false;
}

/** The stream's messages as [first sequence, count], in stream order. */
async function messageRuns(url: string, stream: string): Promise<[number, number][]> {
  const nc = await connect({ servers: url });
  const jsm = await nc.jetstreamManager();
  const info = await jsm.streams.info(stream);
  const out: [number, number][] = [];
  for (let s = info.state.first_seq; s <= info.state.last_seq; s++) {
    const m = await jsm.streams.getMessage(stream, { seq: s });
    const b = WriteBatch.fromData(m.data);
    out.push([b.sequence, b.count]);
  }
  await nc.close();
  return out;
}

function contents(db: DB): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of db.iterator())
    out.push([Buffer.from(k).toString(), Buffer.from(v).toString()]);
  return out;
}

describe.skipIf(missing !== undefined)("publishChanges({ worker: true })", () => {
  let server: NatsServer;
  const root = mkdtempSync(join(tmpdir(), "shale-publisher-worker-"));
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("publishes while the database's thread is held; every batch once, in order", async () => {
    const servers = server.url;
    const stream = "held";
    const leader = await DB.open(join(root, "leader"), dbOptions);
    let pub = await publishChanges(leader, { servers, stream, worker: true });
    const write = (i: number) => {
      if (i % 5 === 0) leader.write(new WriteBatch().put(`b${i}`, "x").delete(`k${i - 1}`));
      else if (i % 7 === 0) leader.merge(`m${i % 3}`, `${i}`);
      else if (i % 97 === 0) leader.deleteRange(`k${i - 50}`, `k${i - 40}`);
      else leader.put(`k${i}`, `v${i}`);
    };
    // The loop never yields; the thread then waits synchronously for the watcher, which
    // only JetStream can satisfy: the worker must publish while this thread is held.
    const done = join(root, "watched");
    const watcher = watch(servers, stream, 3000 + 600, done);
    for (let i = 0; i < 3000; i++) write(i);
    expect(leader.latestSequence).toBe(3600); // 600 batches of two operations
    expect(waitHeldFor(done, 30_000)).toBe(true);
    expect(readFileSync(done, "utf8")).toBe("3600");
    await pub.drain();
    expect(pub.storedSequence).toBe(leader.latestSequence);
    if (watcher.exitCode === null) await new Promise((r) => watcher.once("exit", r));

    // A restart resumes after what the stream holds.
    await pub.close();
    for (let i = 3000; i < 3500; i++) write(i);
    pub = await publishChanges(leader, { servers, stream, worker: true });
    for (let i = 3500; i < 4000; i++) write(i);
    await leader.flush(); // WALs move into the archive; the worker follows them there
    for (let i = 4000; i < 4200; i++) write(i);
    await pub.drain();
    expect(pub.storedSequence).toBe(leader.latestSequence);
    await pub.close();

    // Every batch once, in order: each message starts where the one before it ended.
    const runs = await messageRuns(servers, stream);
    let next = 1;
    for (const [sequence, count] of runs) {
      expect(sequence).toBe(next);
      next += count;
    }
    expect(next - 1).toBe(leader.latestSequence);
    expect(runs.length).toBeLessThan(4200 / 10); // packed

    const f = await followChanges(join(root, "f"), { servers, stream, dbOptions });
    await f.waitFor(leader.latestSequence);
    expect(contents(f.db)).toEqual(contents(leader));
    await f.close();
    await leader.close();
  }, 120_000);

  it("starts after a checkpoint when the WALs lack the beginning; checkpoint() and close()", async () => {
    const servers = server.url;
    const stream = "late-worker";
    const leader = await DB.open(join(root, "late-leader"), { mergeOperator: "stringappend" });
    for (let i = 0; i < 20; i++) leader.put(`k${i}`, `v${i}`);
    await leader.flush(); // no archive: the WAL holding 1..20 is deleted (in the background)
    for (let tries = 0; ; tries++) {
      try {
        leader.getUpdatesSince(1).close();
      } catch (e) {
        expect(String(e)).toMatch(/no longer in the WALs/);
        break;
      }
      expect(tries).toBeLessThan(500);
      await new Promise((r) => setTimeout(r, 10));
    }
    const pub = await publishChanges(leader, { servers, stream, worker: true });
    expect(pub.storedSequence).toBe(20); // the checkpoint's
    for (let i = 0; i < 100; i++) leader.put(`after${i}`, `${i}`);
    await pub.drain();
    expect(pub.storedSequence).toBe(120);
    expect(await pub.checkpoint()).toBe(120);
    const f = await followChanges(join(root, "late-f"), { servers, stream, dbOptions });
    await f.waitFor(120);
    expect(contents(f.db)).toEqual(contents(leader));
    await f.close();
    await pub.close();
    leader.put("late", "write");
    await expect(pub.drain()).rejects.toMatchObject({ code: "Closed" });
    await expect(pub.checkpoint()).rejects.toMatchObject({ code: "Closed" });
    await leader.close();
  }, 60_000);

  it("stops on a publish JetStream refuses: drain() rejects with the worker's error", async () => {
    const servers = server.url;
    const stream = "foreign";
    const leader = await DB.open(join(root, "foreign-leader"), dbOptions);
    leader.put("a", "1");
    const pub = await publishChanges(leader, { servers, stream, worker: true });
    await pub.drain();
    // Someone else appends to the stream: the worker's next publish expects another last
    // message, JetStream refuses it, and the publisher stops rather than leave a hole.
    const nc = await connect({ servers });
    await nc.jetstream().publish(`${stream}.batches`, new Uint8Array(12));
    await nc.close();
    leader.put("b", "2");
    const e = await pub.drain().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(Error);
    expect(String(e)).toMatch(/wrong last sequence/);
    expect(pub.error).toBe(e);
    expect(pub.storedSequence).toBe(1);
    await pub.close();
    await leader.close();
  }, 60_000);

  it("refuses a database off the node file system, and a worker option that is not a boolean", async () => {
    const mem = await DB.open("/mem", { fs: new MemoryFileSystem() });
    try {
      await publishChanges(mem, { servers: server.url, stream: "mem", worker: true });
      expect.unreachable();
    } catch (e) {
      expect(ShaleError.isInstance(e) && e.code).toBe("NotSupported");
    }
    await expect(
      publishChanges(mem, {
        servers: server.url,
        stream: "mem",
        worker: "yes" as unknown as boolean,
      }),
    ).rejects.toThrow(TypeError);
    await mem.close();
  });
});

describe("errors across the worker's port", () => {
  it("keeps a ShaleError's code, message, file and offset", () => {
    const e = fromWire(
      structuredClone(toWire(ShaleError.corruption("bad record", "000007.log", 42))),
    );
    expect(ShaleError.isInstance(e)).toBe(true);
    const s = e as ShaleError;
    expect([s.code, s.message, s.file, s.offset]).toEqual([
      "Corruption",
      "Corruption: bad record (000007.log @ 42)",
      "000007.log",
      42,
    ]);
    const plain = fromWire(structuredClone(toWire(new RangeError("out"))));
    expect([ShaleError.isInstance(plain), plain.name, plain.message]).toEqual([
      false,
      "RangeError",
      "out",
    ]);
  });
});
