/**
 * The follower's consumer watchdog (feed-consumer.ts) against a real `nats-server -js`
 * (skipped, with the reason printed, where it is missing): a consumer taken away from under
 * the follower is replaced under a new name, and the follower goes on from the next batch.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DB } from "@shale/db";
import { connect } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STALL_MS } from "./feed-consumer.js";
import { followChanges } from "./follower.js";
import { type NatsServer, natsMissing, startNatsServer } from "./nats-server.test-support.js";
import { publishChanges } from "./publisher.js";

const missing = natsMissing();
if (missing !== undefined) console.log(`feed consumer tests: skipped — ${missing}`);

describe.skipIf(missing !== undefined)("the follower's consumer watchdog", () => {
  let server: NatsServer;
  const root = mkdtempSync(join(tmpdir(), "shale-feed-consumer-"));
  beforeAll(async () => {
    server = await startNatsServer();
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("replaces a consumer deleted from under the follower, and misses nothing", async () => {
    const stream = "watched";
    const leader = await DB.open(join(root, "leader"), { walTtlSeconds: 3600 });
    const pub = await publishChanges(leader, { servers: server.url, stream });
    for (let i = 0; i < 50; i++) leader.put(`k${i}`, `v${i}`);
    await pub.drain();
    const f = await followChanges(join(root, "f"), { servers: server.url, stream });
    await f.waitFor(leader.latestSequence);
    const nc = await connect({ servers: server.url });
    const jsm = await nc.jetstreamManager();
    const before = await jsm.consumers.list(stream).next();
    expect(before).toHaveLength(1);
    const first = before[0]!.name;
    expect(first).toMatch(/_1$/);
    await jsm.consumers.delete(stream, first);
    for (let i = 50; i < 100; i++) leader.put(`k${i}`, `v${i}`);
    await pub.drain();
    const started = Date.now();
    await f.waitFor(leader.latestSequence);
    expect(Date.now() - started).toBeLessThan(STALL_MS + 10_000);
    expect(f.error).toBeUndefined();
    const after = await jsm.consumers.list(stream).next();
    expect(after.map((c) => c.name)).toEqual([first.replace(/_1$/, "_2")]);
    expect(f.appliedSequence).toBe(leader.latestSequence);
    expect(f.db.get("k99")).toBeDefined();
    await nc.close();
    await f.close();
    await pub.close();
    await leader.close();
  }, 60_000);
});
