/**
 * Follower lag on loopback: a writer process puts random 16-byte keys with 100-byte values
 * and publishes its feed to JetStream; a follower process applies it. The lag of a write is
 * the time from its put returning on the writer to the follower's `appliedSequence`
 * reaching its sequence. Prints p50, p99 and max per run, and the sustained rates of the
 * writer (puts/s while it puts) and of the follower (writes applied/s from its first apply
 * to its last). Needs nats-server on the PATH and the built packages:
 *
 *   npx -y pnpm@10.34.8 --filter @shale/replication... build
 *   node packages/replication/bench/follower-lag.mjs [--rates=5000,20000,max] [--seconds=8]
 *        [--num=1000000] [--cluster] [--publisher=<json options>] [--trace] [--catch-up]
 *
 * - A number in `--rates`: that many puts per second for `--seconds` (the writer turns the
 *   event loop every millisecond, between the puts due by then).
 * - `max`: db_bench's fillrandom (apps/db-bench, workloads/writes.ts) unthrottled: `--num`
 *   puts in one synchronous loop, key numbers uniform in [0, num) as 8 big-endian bytes
 *   padded with '0' to 16, values from a 1 MiB pool that compresses to half, db_bench's
 *   options for shale (64 MiB write buffer, 32 MiB block cache, snappy). The loop records
 *   each put's return time, as db-bench's --histogram does.
 * - `--cluster`: three nats-server nodes routed into one JetStream cluster, the stream with
 *   three replicas; the writer talks to node 0, the follower to node 1. Default: one node.
 * - `--publisher`: extra publishChanges options, e.g. `--publisher='{"worker":true}'`.
 * - `--catch-up`: the follower starts only once the writer is done and JetStream holds every
 *   write, so "follower writes/s" is its apply rate alone (its lags then include the wait).
 * - `--trace`: also prints the number of applies and the lag of the writes at every 5% of
 *   the run (does a backlog grow, or was there one stall?).
 *
 * One process per role (this script re-runs itself as writer and follower); times are
 * `performance.timeOrigin + performance.now()`, the same clock in every process.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DB } from "@shale/db";
import { followChanges, publishChanges } from "@shale/replication";
import { connect } from "nats";

const now = () => performance.timeOrigin + performance.now();
const arg = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const MiB = 1 << 20;

/** db_bench's FastRandom (xorshift128 on two words), as apps/db-bench has it. */
function fastRandom(seed) {
  let a = (seed ^ 0x9e3779b9) >>> 0 || 1;
  let b = Math.imul(seed, 0x85ebca6b) >>> 0 || 2;
  return (n) => {
    let t = a;
    const s = b;
    a = s;
    t ^= t << 11;
    t ^= t >>> 8;
    b = (t ^ s ^ (s >>> 19)) >>> 0;
    return Math.floor((b / 4294967296) * n);
  };
}

/** db_bench's value pool: 100-byte pieces of a random 50-byte fragment, repeated. */
function valuePool(seed) {
  const uniform = fastRandom(seed);
  const data = Buffer.alloc(MiB + 100_000);
  for (let filled = 0; filled < data.length; ) {
    const frag = new Uint8Array(50);
    for (let i = 0; i < 50; i++) frag[i] = 0x20 + uniform(95);
    for (let i = 0; i < 100 && filled < data.length; i++) data[filled++] = frag[i % 50];
  }
  return data;
}

async function writer(dir, servers, stream, mode, seconds, num, replicas, extra) {
  const max = mode === "max";
  const db = await DB.open(
    dir,
    max
      ? {
          walTtlSeconds: 3600,
          writeBufferSize: 64 * MiB,
          blockCacheSize: 32 * MiB,
          compression: "snappy",
        }
      : { walTtlSeconds: 3600 },
  );
  // A cluster just started may still be electing its JetStream leaders: retry for a while.
  const deadline = Date.now() + 60_000;
  let pub;
  while (pub === undefined) {
    try {
      pub = await publishChanges(db, { servers, stream, replicas, ...extra });
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const total = max ? num : Number(mode) * seconds;
  const times = new Float64Array(total);
  const key = Buffer.alloc(16, 0x30);
  const pool = valuePool(301);
  const uniform = fastRandom(301 + 1);
  let pos = 0;
  const start = now();
  let i = 0;
  const put = () => {
    const n = uniform(max ? num : 2 ** 32);
    key.writeUInt32BE(Math.floor(n / 4294967296), 0);
    key.writeUInt32BE(n >>> 0, 4);
    if (pos + 100 > pool.length) pos = 0;
    db.put(key, pool.subarray(pos, pos + 100));
    pos += 100;
    times[i] = now();
  };
  if (max) {
    for (; i < total; i++) put();
  } else {
    const rate = Number(mode);
    while (i < total) {
      // Writes due by now (fixed rate), then the event loop turns (the publisher runs).
      const due = Math.min(total, Math.floor(((now() - start) / 1000) * rate));
      for (; i < due; i++) put();
      await new Promise((r) => setTimeout(r, 1));
    }
  }
  const putEnd = now();
  await pub.drain();
  const drained = now();
  writeFileSync(join(dir, "..", `${stream}.w`), new Uint8Array(times.buffer));
  process.stdout.write(
    `${db.latestSequence} ${(putEnd - start).toFixed(1)} ${(drained - putEnd).toFixed(1)}\n`,
  );
  await pub.close();
  await db.close();
}

async function follower(dir, servers, stream, total) {
  const f = await followChanges(dir, { servers, stream });
  // (applied sequence, time) at every apply: waitFor resolves in the apply's microtask.
  const applied = new Float64Array(2 * total + 2);
  let n = 0;
  await new Promise((resolve, reject) => {
    const next = () => {
      const seq = f.appliedSequence;
      applied[n++] = seq;
      applied[n++] = now();
      if (seq >= total) resolve();
      else f.waitFor(seq + 1).then(next, reject);
    };
    f.waitFor(1).then(next, reject);
  });
  writeFileSync(join(dir, "..", `${stream}.f`), new Uint8Array(applied.buffer, 0, n * 8));
  process.stdout.write("done\n");
  await f.close();
}

function run(args) {
  // Node flags (--cpu-prof, say) go to the writer and the follower too.
  const self = [...process.execArgv, new URL(import.meta.url).pathname];
  const child = spawn(process.execPath, [...self, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (c) => {
    out += c;
  });
  return new Promise((resolve, reject) =>
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`)))),
  );
}

/** Starts nats-server with `args`; resolves with its client URL once it is ready. */
function natsServer(args, children) {
  const child = spawn("nats-server", ["-js", "-a", "127.0.0.1", ...args], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let log = "";
    child.stderr.on("data", (c) => {
      log += c;
      const m = /Listening for client connections on ([\d.]+:\d+)/.exec(log);
      if (m && /Server is ready/.test(log)) {
        child.stderr.resume();
        resolve(`nats://${m[1]}`);
      }
    });
    child.on("exit", (code) => reject(new Error(`nats-server exited ${code}:\n${log}`)));
  });
}

/** One node, or three routed into a cluster: [writer's servers, follower's servers]. */
async function startServers(root, cluster, children) {
  if (!cluster) {
    const url = await natsServer(["-p", "-1", "-sd", join(root, "js")], children);
    return [url, url];
  }
  const base = 20000 + Math.floor(Math.random() * 20000);
  const routes = [0, 1, 2].map((i) => `nats://127.0.0.1:${base + 10 + i}`);
  const urls = await Promise.all(
    [0, 1, 2].map((i) =>
      natsServer(
        [
          ...["-p", String(base + i), "-sd", join(root, `n${i}`), "--server_name", `n${i}`],
          ...["--cluster_name", "lag", "--cluster", routes[i]],
          ...["--routes", routes.filter((_, j) => j !== i).join(",")],
        ],
        children,
      ),
    ),
  );
  // Every node answers JetStream requests once the cluster has elected its meta leader.
  for (const url of urls) {
    const nc = await connect({ servers: url });
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await (await nc.jetstreamManager()).getAccountInfo();
        break;
      } catch (e) {
        if (Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    await nc.close();
  }
  return [[urls[0], ...urls.slice(1)].join(","), [urls[1], urls[2], urls[0]].join(",")];
}

/** A file of float64s (a copy: a small read may share a pooled buffer). */
function float64s(path) {
  return new Float64Array(Uint8Array.prototype.slice.call(readFileSync(path)).buffer);
}

/** Lag of every write: its apply time (first apply reaching it) minus its put's return. */
function lags(writes, applies, sorted = true) {
  const out = new Float64Array(writes.length);
  let a = 0;
  for (let s = 1; s <= writes.length; s++) {
    while (applies[a] < s) a += 2;
    out[s - 1] = applies[a + 1] - writes[s - 1];
  }
  return sorted ? out.sort() : out;
}

async function main() {
  const rates = arg("rates", "5000,20000,max").split(",");
  const seconds = Number(arg("seconds", "8"));
  const num = Number(arg("num", "1000000"));
  const cluster = process.argv.includes("--cluster");
  const trace = process.argv.includes("--trace");
  const catchUp = process.argv.includes("--catch-up");
  const extra = arg("publisher", "{}");
  const root = mkdtempSync(join(tmpdir(), "shale-lag-"));
  const children = [];
  try {
    const [wServers, fServers] = await startServers(root, cluster, children);
    console.log(
      `follower lag, 16 B keys, 100 B values, ${cluster ? "3-node cluster (replicas 3)" : "one nats-server"}, loopback, publisher ${extra}`,
    );
    console.log(
      "rate (puts/s)    writes   p50 ms   p99 ms   max ms   writer puts/s   follower writes/s   drain ms",
    );
    for (const rate of rates) {
      const stream = `lag${rate}`;
      const total = rate === "max" ? num : Number(rate) * seconds;
      const follow = () =>
        run(["follower", join(root, `f${rate}`), fServers, stream, String(total)]);
      // --catch-up: the follower starts once the writer is done and drained.
      let f = catchUp ? undefined : follow();
      await new Promise((r) => setTimeout(r, 300)); // the follower needs the stream: retry
      const w = run([
        ...["writer", join(root, `w${rate}`), wServers, stream, rate, String(seconds)],
        ...[String(num), cluster ? "3" : "1", extra],
      ]);
      const [seq, putMs, drainMs] = (await w).trim().split(/\s+/).map(Number);
      f ??= follow();
      await f;
      const writes = float64s(join(root, `${stream}.w`));
      const applies = float64s(join(root, `${stream}.f`));
      if (seq !== total || writes.length !== total) throw new Error(`wrote ${seq} of ${total}`);
      const l = lags(writes, applies);
      const q = (p) => l[Math.min(total - 1, Math.floor(p * total))].toFixed(2);
      // From the first apply to the last: the writes after the first apply, per second.
      const applySpan = applies[applies.length - 1] - applies[1];
      const firstApplied = applies[0];
      if (trace) {
        const raw = lags(writes, applies, false);
        const parts = [];
        for (let k = 0; k < 20; k++) parts.push(raw[Math.floor((k * total) / 20)].toFixed(0));
        console.log(
          `  ${applies.length / 2} applies; lag (ms) of the writes at 0%, 5%, ... 95%: ${parts.join(" ")}`,
        );
      }
      const cells = [
        rate.padStart(13),
        String(total).padStart(9),
        q(0.5).padStart(8),
        q(0.99).padStart(8),
        l[total - 1].toFixed(2).padStart(8),
        Math.round(total / (putMs / 1000))
          .toLocaleString("en-US")
          .padStart(15),
        Math.round((total - firstApplied) / (applySpan / 1000))
          .toLocaleString("en-US")
          .padStart(19),
        drainMs.toFixed(0).padStart(10),
      ];
      console.log(cells.join(" "));
    }
  } finally {
    for (const c of children) c.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 300));
    rmSync(root, { recursive: true, force: true });
  }
}

const [role, ...rest] = process.argv.slice(2);
if (role === "writer") {
  const [dir, servers, stream, mode, seconds, num, replicas, extra] = rest;
  const list = servers.split(",");
  await writer(dir, list, stream, mode, Number(seconds), Number(num), Number(replicas), {
    ...JSON.parse(extra),
  });
} else if (role === "follower") {
  // The writer creates the stream: wait for it, and for a new cluster's JetStream leaders.
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await follower(rest[0], rest[1].split(","), rest[2], Number(rest[3]));
      break;
    } catch (e) {
      if (!/does not exist|TIMEOUT|unavailable/i.test(String(e.message)) || Date.now() > deadline)
        throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
} else await main();
