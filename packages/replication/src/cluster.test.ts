/**
 * The feed on a 3-node JetStream cluster (routes on loopback ports, the stream with 3
 * replicas; skipped, with the reason printed, where nats-server is missing): a node is
 * killed while the writer publishes (the one
 * holding the follower's consumer); a publisher that fails meanwhile is started again and
 * resumes from what the stream stored; the follower ends with exactly the writer's
 * contents, no hole, nothing applied twice.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DB } from "@shale/db";
import { connect } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { followChanges } from "./follower.js";
import { type NatsCluster, natsMissing, startNatsCluster } from "./nats-server.test-support.js";
import { type ChangePublisher, publishChanges } from "./publisher.js";

const missing = natsMissing();
if (missing !== undefined) console.log(`replication cluster tests: skipped — ${missing}`);

function contents(db: DB): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of db.iterator())
    out.push([Buffer.from(k).toString(), Buffer.from(v).toString()]);
  return out;
}

/** publishChanges, retried while the cluster elects its leaders. */
async function publisher(db: DB, servers: string[], stream: string): Promise<ChangePublisher> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await publishChanges(db, { servers, stream, replicas: 3 });
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** drain(), starting the publisher again each time it fails (it resumes from the stream). */
async function drained(
  pub: ChangePublisher,
  db: DB,
  servers: string[],
  stream: string,
): Promise<ChangePublisher> {
  for (;;) {
    try {
      await pub.drain();
      return pub;
    } catch {
      await pub.close().catch(() => {});
      pub = await publisher(db, servers, stream);
    }
  }
}

/** The index of the node that leads the stream's (one) consumer. */
async function consumerNode(servers: string[], stream: string): Promise<number> {
  const nc = await connect({ servers });
  try {
    const jsm = await nc.jetstreamManager();
    const consumers = await jsm.consumers.list(stream).next();
    expect(consumers).toHaveLength(1);
    const leader = consumers[0]!.cluster?.leader;
    expect(leader).toMatch(/^n\d$/);
    return Number(leader!.slice(1));
  } finally {
    await nc.close();
  }
}

describe.skipIf(missing !== undefined)("replication on a 3-node JetStream cluster", () => {
  let cluster: NatsCluster;
  const root = mkdtempSync(join(tmpdir(), "shale-replication-cluster-"));
  beforeAll(async () => {
    cluster = await startNatsCluster(3);
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("survives the node holding the follower's consumer killed mid-stream: the follower converges, no hole", async () => {
    const servers = cluster.urls;
    const stream = "clustered";
    const leader = await DB.open(join(root, "leader"), { walTtlSeconds: 3600 });
    let pub = await publisher(leader, servers, stream);
    for (let i = 0; i < 300; i++) leader.put(`k${i}`, `v${i}`);
    pub = await drained(pub, leader, servers, stream);
    const f = await followChanges(join(root, "f"), { servers, stream });
    // The node holding the follower's one-replica consumer: losing it left the follower
    // idle for good (the client's consumer never came back) until feed-consumer.ts.
    const holder = await consumerNode(servers, stream);
    await cluster.kill(holder);
    for (let i = 300; i < 600; i++) {
      leader.put(`k${i}`, `v${i}`);
      if (i % 50 === 0) pub = await drained(pub, leader, servers, stream);
    }
    pub = await drained(pub, leader, servers, stream);
    await f.waitFor(leader.latestSequence);
    expect(f.error).toBeUndefined();
    expect(contents(f.db)).toEqual(contents(leader));
    await f.close();
    await pub.close();
    await leader.close();
  }, 150_000);
});
