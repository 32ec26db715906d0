/**
 * publishChanges / followChanges against a real `nats-server -js` (skipped, with the reason
 * printed, where it is missing): followers converge on the writer's contents; a restarted
 * publisher or follower resumes with nothing sent or applied twice; another database's
 * stream is refused; a hole in the stream stops the follower before it; the follower's
 * database is read-only; new followers start from a checkpoint in the object store when the
 * stream lost its beginning; a promoted follower publishes on.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ShaleError } from "@shale/base";
import { DB, WriteBatch } from "@shale/db";
import { connect, headers } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uploadCheckpoint } from "./bootstrap.js";
import { followChanges } from "./follower.js";
import { feedIdentity } from "./identity.js";
import { type NatsServer, natsMissing, startNatsServer } from "./nats-server.test-support.js";
import { packBatches } from "./pack.js";
import { publishChanges } from "./publisher.js";
import { batchAt, batchHeaders, ensureStream } from "./stream.js";

const missing = natsMissing();
if (missing !== undefined) console.log(`replication tests: skipped — ${missing}`);

const dbOptions = { mergeOperator: "stringappend" as const, walTtlSeconds: 3600 };

function contents(db: DB): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of db.iterator())
    out.push([Buffer.from(k).toString(), Buffer.from(v).toString()]);
  return out;
}

async function codeOf(p: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    if (ShaleError.isInstance(e)) return e.code;
    throw e;
  }
  throw new Error("expected a ShaleError");
}

async function streamMessages(url: string, stream: string): Promise<number> {
  const nc = await connect({ servers: url });
  const jsm = await nc.jetstreamManager();
  const info = await jsm.streams.info(stream);
  await nc.close();
  return info.state.messages;
}

describe.skipIf(missing !== undefined)("replication through JetStream", () => {
  let server: NatsServer;
  const root = mkdtempSync(join(tmpdir(), "shale-replication-"));
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("followers converge; restarts resume with each batch sent and applied once", async () => {
    const servers = server.url;
    const stream = "converge";
    const leader = await DB.open(join(root, "leader"), dbOptions);
    let batches = 0;
    const write = (i: number) => {
      if (i % 5 === 0) leader.write(new WriteBatch().put(`b${i}`, "x").delete(`k${i - 1}`));
      else if (i % 7 === 0) leader.merge(`m${i % 3}`, `${i}`);
      else leader.put(`k${i}`, `v${i}`);
      batches++;
    };
    for (let i = 0; i < 300; i++) write(i);
    let pub = await publishChanges(leader, { servers, stream });
    await pub.drain();
    expect(pub.storedSequence).toBe(leader.latestSequence);

    const f = await followChanges(join(root, "f1"), { servers, stream, dbOptions });
    for (let i = 300; i < 500; i++) write(i);
    await leader.flush(); // WALs move into the archive; the feed goes on
    await pub.drain();
    await f.waitFor(leader.latestSequence);
    expect(contents(f.db)).toEqual(contents(leader));
    expect(f.appliedSequence).toBe(leader.latestSequence);
    await f.close();

    // The publisher restarts: it resumes after what the stream holds.
    await pub.close();
    for (let i = 500; i < 600; i++) write(i);
    pub = await publishChanges(leader, { servers, stream });
    await pub.drain();
    // The batches written while the publisher was away travel packed (pack.ts).
    expect(await streamMessages(servers, stream)).toBeLessThan(batches / 10);

    // The follower restarts: it resumes at its own last sequence.
    const again = await followChanges(join(root, "f1"), { servers, stream, dbOptions });
    await again.waitFor(leader.latestSequence);
    expect(contents(again.db)).toEqual(contents(leader));
    expect(again.appliedSequence).toBe(leader.latestSequence);

    // Read-only to the application.
    expect(await codeOf(() => again.db.put("x", "y"))).toBe("NotSupported");
    expect(await codeOf(() => again.db.write(new WriteBatch()))).toBe("NotSupported");
    expect(await codeOf(() => again.db.close())).toBe("NotSupported");
    expect(Buffer.from(again.db.get("k1")!).toString()).toBe("v1");
    await again.close();
    await pub.close();
    await leader.close();
  }, 60_000);

  it("refuses another database's stream, and a database that is not a follower", async () => {
    const servers = server.url;
    const a = await DB.open(join(root, "a"), dbOptions);
    a.put("a", "1");
    const pubA = await publishChanges(a, { servers, stream: "feed-a" });
    await pubA.drain();
    const b = await DB.open(join(root, "b"), dbOptions);
    b.put("b", "1");
    expect(await codeOf(publishChanges(b, { servers, stream: "feed-a" }))).toBe("InvalidArgument");
    const pubB = await publishChanges(b, { servers, stream: "feed-b" });
    await pubB.drain();

    const f = await followChanges(join(root, "fa"), { servers, stream: "feed-a", dbOptions });
    await f.waitFor(1);
    await f.close();
    expect(
      await codeOf(followChanges(join(root, "fa"), { servers, stream: "feed-b", dbOptions })),
    ).toBe("InvalidArgument");
    // A database with data of its own is not a follower.
    await pubA.close();
    await a.close();
    expect(
      await codeOf(followChanges(join(root, "a"), { servers, stream: "feed-b", dbOptions })),
    ).toBe("InvalidArgument");
    expect(
      await codeOf(followChanges(join(root, "x"), { servers, stream: "none", dbOptions })),
    ).toBe("NotFound");
    expect(await codeOf(() => publishChanges(b, { servers, stream: "a.b" }))).toBe(
      "InvalidArgument",
    );
    expect(await codeOf(() => publishChanges(b, { servers, stream: "s", ackTimeoutMs: 0 }))).toBe(
      "InvalidArgument",
    );
    const bogus = { servers, stream: "s", bogus: 1 } as unknown as {
      servers: string;
      stream: string;
    };
    expect(await codeOf(() => publishChanges(b, bogus))).toBe("InvalidArgument");
    await expect(
      publishChanges(b, { servers: 5 as unknown as string, stream: "s" }),
    ).rejects.toThrow(TypeError);
    await expect(
      followChanges(join(root, "y"), { servers, stream: 7 as unknown as string }),
    ).rejects.toThrow(TypeError);
    await pubB.close();
    await b.close();
  }, 60_000);

  it("stops at a hole in the stream, naming the missing sequence, applying nothing past it", async () => {
    const servers = server.url;
    const stream = "holes";
    const leader = await DB.open(join(root, "holes-leader"), dbOptions);
    for (let i = 1; i <= 3; i++) leader.put(`k${i}`, "v");
    const pub = await publishChanges(leader, { servers, stream });
    await pub.drain();
    await pub.close();
    // A batch at sequence 10 appended by hand: 4..9 are missing.
    const data = new WriteBatch().put("late", "x").data();
    data[0] = 10;
    const nc = await connect({ servers });
    const h = headers();
    h.set("Shale-Database", pub.identity);
    await nc.jetstream().publish(`${stream}.batches`, data, { headers: h });
    await nc.close();
    const f = await followChanges(join(root, "holes-f"), { servers, stream, dbOptions });
    const waited = f.waitFor(10);
    expect(await codeOf(waited)).toBe("NotFound");
    expect(f.error?.message).toMatch(/no batch with sequence 4 \(the next one holds 10\)/);
    expect(f.appliedSequence).toBe(3);
    expect(f.db.get("late")).toBeUndefined();
    await f.close();
    await leader.close();
  }, 60_000);

  it("a new follower starts from a checkpoint in the object store when the stream lost its beginning", async () => {
    const servers = server.url;
    const stream = "trimmed";
    const leader = await DB.open(join(root, "tr-leader"), dbOptions);
    for (let i = 0; i < 100; i++) leader.put(`k${i}`, `v${i}`);
    const pub = await publishChanges(leader, { servers, stream });
    await pub.drain();
    const at = await pub.checkpoint();
    expect(at).toBe(100);
    for (let i = 100; i < 150; i++) leader.put(`k${i}`, `w${i}`);
    await pub.drain();
    // Retention drops the batches the checkpoint holds (1..100, written before the
    // publisher started: one message), keeping the one of 101..150.
    const nc = await connect({ servers });
    const jsm = await nc.jetstreamManager();
    await jsm.streams.purge(stream, { keep: 1 });
    const info = await jsm.streams.info(stream);
    expect((await batchAt(jsm, stream, info.state.first_seq)).sequence).toBe(101);
    await nc.close();
    const f = await followChanges(join(root, "tr-f"), { servers, stream, dbOptions });
    await f.waitFor(150);
    expect(contents(f.db)).toEqual(contents(leader));
    await f.close();
    await pub.close();
    await leader.close();
  }, 60_000);

  it("packs the batches waiting in the feed into messages of at most maxMessageBytes", async () => {
    const servers = server.url;
    const stream = "packed";
    const leader = await DB.open(join(root, "packed-leader"), dbOptions);
    const value = "v".repeat(100);
    for (let i = 0; i < 200; i++) leader.put(`k${String(i).padStart(3, "0")}`, value);
    leader.put("big", "b".repeat(5000)); // larger than a message: goes alone
    for (let i = 0; i < 20; i++) leader.put(`z${i}`, value);
    const pub = await publishChanges(leader, { servers, stream, maxMessageBytes: 1000 });
    await pub.drain();
    const nc = await connect({ servers });
    const jsm = await nc.jetstreamManager();
    const info = await jsm.streams.info(stream);
    let next = 1;
    for (let m = info.state.first_seq; m <= info.state.last_seq; m++) {
      const msg = await jsm.streams.getMessage(stream, { seq: m });
      const batch = WriteBatch.fromData(msg.data);
      expect(batch.sequence).toBe(next);
      expect(msg.header.get("Shale-Sequence")).toBe(String(next));
      if (batch.count > 1) expect(msg.data.length).toBeLessThanOrEqual(1000);
      else if (msg.data.length > 1000)
        expect(Buffer.from([...batch][0]!.key).toString()).toBe("big");
      next += batch.count;
    }
    expect(next - 1).toBe(leader.latestSequence);
    expect(info.state.messages).toBeGreaterThanOrEqual(Math.ceil((220 * 117) / 1000));
    expect(info.state.messages).toBeLessThan(60);
    await nc.close();
    const f = await followChanges(join(root, "packed-f"), { servers, stream, dbOptions });
    await f.waitFor(leader.latestSequence);
    expect(contents(f.db)).toEqual(contents(leader));
    await f.close();
    await pub.close();
    await leader.close();
    for (const bad of [0, -1, 1.5]) {
      const db = await DB.open(join(root, "packed-bad"), dbOptions);
      expect(
        await codeOf(publishChanges(db, { servers, stream: "bad", maxMessageBytes: bad })),
      ).toBe("InvalidArgument");
      await db.close();
    }
  }, 60_000);

  it("a follower starting from a checkpoint taken inside a message applies the rest of it", async () => {
    const servers = server.url;
    const stream = "inside";
    const leader = await DB.open(join(root, "inside-leader"), dbOptions);
    for (let i = 1; i <= 50; i++) leader.put(`k${i}`, `v${i}`);
    const identity = feedIdentity(leader.dir);
    const nc = await connect({ servers });
    const jsm = await nc.jetstreamManager();
    await ensureStream(jsm, stream, identity, 1);
    expect((await uploadCheckpoint(nc, leader, stream, identity)).sequence).toBe(50);
    for (let i = 1; i <= 50; i++) leader.merge(`k${i}`, `w${i}`);
    // The stream (its beginning trimmed) starts with one message holding 40..100.
    const feed = leader.getUpdatesSince(40);
    const parts: Uint8Array[] = [];
    for (let u = feed.read(); u !== undefined; u = feed.read()) parts.push(u.batch.data());
    feed.close();
    await nc.jetstream().publish(`${stream}.batches`, packBatches(parts, 40, 61), {
      headers: batchHeaders(identity, 40),
    });
    await nc.close();
    const f = await followChanges(join(root, "inside-f"), { servers, stream, dbOptions });
    await f.waitFor(100);
    expect(f.appliedSequence).toBe(100);
    expect(contents(f.db)).toEqual(contents(leader));
    await f.close();
    await leader.close();
  }, 60_000);

  it("a database whose WALs lack its beginning is published from a checkpoint", async () => {
    const servers = server.url;
    const stream = "late";
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
    const pub = await publishChanges(leader, { servers, stream });
    leader.put("after", "the checkpoint");
    await pub.drain();
    const f = await followChanges(join(root, "late-f"), { servers, stream, dbOptions });
    await f.waitFor(21);
    expect(contents(f.db)).toEqual(contents(leader));
    await f.close();
    await pub.close();
    await leader.close();
  }, 60_000);

  it("a promoted follower publishes on from the stream's last sequence", async () => {
    const servers = server.url;
    const stream = "failover";
    const leader = await DB.open(join(root, "fo-leader"), dbOptions);
    for (let i = 0; i < 50; i++) leader.put(`k${i}`, `v${i}`);
    const pub = await publishChanges(leader, { servers, stream });
    await pub.drain();
    const f = await followChanges(join(root, "fo-f"), { servers, stream, dbOptions });
    const other = await followChanges(join(root, "fo-other"), { servers, stream, dbOptions });
    // The leader goes away; the follower takes over.
    await pub.close();
    await leader.close();
    const promoted = await f.promote();
    expect(promoted.latestSequence).toBe(50);
    promoted.put("after", "failover");
    const pub2 = await publishChanges(promoted, { servers, stream });
    await pub2.drain();
    await other.waitFor(51);
    expect(Buffer.from(other.db.get("after")!).toString()).toBe("failover");
    expect(other.error).toBeUndefined();
    await other.close();
    await pub2.close();
    await promoted.close();
  }, 60_000);
});
