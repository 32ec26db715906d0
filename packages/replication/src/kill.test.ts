/**
 * Processes killed mid-stream (SIGKILL), against a real `nats-server -js` (skipped, with
 * the reason printed, where it is missing): a writer process publishing its puts, two
 * follower processes, one of them killed and restarted while the writer runs, then the
 * writer killed. Afterwards each follower holds exactly a prefix of the writer's writes —
 * every write JetStream had acknowledged to the writer, every key up to the stream's end,
 * nothing after it, no hole — and the writer's own recovered database holds that prefix too.
 * The fixtures import the built packages (build first).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DB } from "@shale/db";
import { connect } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NatsServer, natsMissing, startNatsServer } from "./nats-server.test-support.js";
import { lastBatch } from "./stream.js";

const missing = natsMissing();
if (missing !== undefined) console.log(`replication kill tests: skipped — ${missing}`);

const fixture = (name: string) => join(import.meta.dirname, "test-fixtures", name);
const key = (i: number) => `k${String(i).padStart(8, "0")}`;

/** A child process and the last number it printed after `word`. */
interface Child {
  readonly proc: ChildProcess;
  last: number;
  output: string;
  exited: Promise<number | null>;
}

function start(script: string, args: string[], word: string): Child {
  const proc = spawn(process.execPath, [fixture(script), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const child: Child = {
    proc,
    last: 0,
    output: "",
    exited: new Promise((r) => proc.once("exit", (code) => r(code))),
  };
  const re = new RegExp(`${word} (\\d+)`, "g");
  proc.stdout!.on("data", (chunk: Buffer) => {
    const text = chunk.toString();
    child.output = (child.output + text).slice(-4000);
    for (const m of text.matchAll(re)) child.last = Math.max(child.last, Number(m[1]));
  });
  proc.stderr!.on("data", (chunk: Buffer) => {
    child.output = (child.output + chunk.toString()).slice(-4000);
  });
  return child;
}

async function until(what: string, cond: () => boolean, child?: Child, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}\n${child?.output ?? ""}`);
    if (child !== undefined && child.proc.exitCode !== null)
      throw new Error(`child exited ${child.proc.exitCode} waiting for ${what}\n${child.output}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function kill(child: Child): Promise<void> {
  child.proc.kill("SIGKILL");
  await child.exited;
}

describe.skipIf(missing !== undefined)("replication with processes killed mid-stream", () => {
  let server: NatsServer;
  const root = mkdtempSync(join(tmpdir(), "shale-replication-kill-"));
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("followers hold a prefix of the acknowledged writes, never a hole", async () => {
    const servers = server.url;
    const stream = "killed";
    const writerDir = join(root, "writer");
    const writer = start("writer.mjs", [writerDir, servers, stream], "stored");
    await until("the first writes stored", () => writer.last >= 500, writer);
    const dirs = [join(root, "f1"), join(root, "f2")];
    let followers = dirs.map((d) => start("follower.mjs", [d, servers, stream], "applied"));
    await until("follower 1 applying", () => followers[0]!.last > 0, followers[0]);
    await kill(followers[0]!); // killed mid-stream, restarted while the writer runs
    await until("more writes stored", () => writer.last >= 3000, writer);
    followers[0] = start("follower.mjs", [dirs[0]!, servers, stream], "applied");
    await until("more writes stored", () => writer.last >= 5000, writer);
    await kill(writer);
    const acknowledged = writer.last;

    // The stream's end: every follower gets there, then stops.
    const nc = await connect({ servers });
    const jsm = await nc.jetstreamManager();
    const last = await lastBatch(jsm, await jsm.streams.info(stream));
    await nc.close();
    const end = last!.sequence + last!.count - 1;
    expect(end).toBeGreaterThanOrEqual(acknowledged);
    for (const f of followers) await until(`a follower at ${end}`, () => f.last >= end, f);
    for (const f of followers) {
      f.proc.kill("SIGTERM");
      expect(await f.exited).toBe(0);
      expect(f.output).not.toMatch(/error/);
    }
    followers = [];

    // Each follower: exactly keys 0 .. end - 1, and nothing else.
    for (const d of dirs) {
      const db = await DB.open(d, { createIfMissing: false });
      expect(db.latestSequence).toBe(end);
      let i = 0;
      for (const [k, v] of db.iterator()) {
        expect(Buffer.from(k).toString()).toBe(key(i));
        expect(Buffer.from(v).toString()).toBe(`v${i}`);
        i++;
      }
      expect(i).toBe(end);
      await db.close();
    }
    // The writer's recovered database holds at least what the stream holds.
    const db = await DB.open(writerDir, { createIfMissing: false });
    expect(db.latestSequence).toBeGreaterThanOrEqual(end);
    expect(Buffer.from(db.get(key(end - 1))!).toString()).toBe(`v${end - 1}`);
    await db.close();
  }, 180_000);
});
