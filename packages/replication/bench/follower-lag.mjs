/**
 * Follower lag under a fillrandom-like load on loopback: a writer process puts random
 * 16-byte keys with 100-byte values at a fixed rate (each value starts with its write time)
 * and publishes its feed to JetStream; a follower process applies it and tails its own
 * database's change feed every millisecond, taking for each write `now - write time`.
 * Prints p50, p99 and max per rate. Needs nats-server on the PATH and the built packages:
 *
 *   npx -y pnpm@10.34.8 --filter @shale/replication... build
 *   node packages/replication/bench/follower-lag.mjs [--rates=5000,20000,50000] [--seconds=8]
 *
 * One process per role (this script re-runs itself as writer and follower); times are
 * `performance.timeOrigin + performance.now()`, the same clock in both processes.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DB } from "@shale/db";
import { followChanges, publishChanges } from "@shale/replication";

const now = () => performance.timeOrigin + performance.now();
const arg = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback;

async function writer(dir, servers, stream, rate, seconds) {
  const db = await DB.open(dir, { walTtlSeconds: 3600 });
  const pub = await publishChanges(db, { servers, stream });
  const key = Buffer.alloc(16);
  const value = Buffer.alloc(100, 0x61);
  const total = rate * seconds;
  const start = now();
  let i = 0;
  while (i < total) {
    // Writes due by now (fixed rate), then the event loop turns (the publisher runs).
    const due = Math.min(total, Math.floor(((now() - start) / 1000) * rate));
    for (; i < due; i++) {
      key.writeUInt32BE((Math.random() * 2 ** 32) >>> 0, 0);
      key.writeUInt32BE(i, 4);
      value.writeDoubleLE(now(), 0);
      db.put(key, value);
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await pub.drain();
  process.stdout.write(`done ${db.latestSequence}\n`);
  await pub.close();
  await db.close();
}

async function follower(dir, servers, stream, total) {
  const f = await followChanges(dir, { servers, stream });
  const lags = new Float64Array(total);
  let n = 0;
  let feed;
  while (n < total) {
    await new Promise((r) => setTimeout(r, 1));
    if (f.appliedSequence === 0) continue;
    feed ??= f.db.getUpdatesSince(1);
    for (let u = feed.read(); u !== undefined; u = feed.read()) {
      const t = now();
      for (const op of u.batch) lags[n++] = t - Buffer.from(op.value).readDoubleLE(0);
    }
  }
  feed.close();
  lags.sort();
  const q = (p) => lags[Math.min(n - 1, Math.floor(p * n))].toFixed(2);
  process.stdout.write(`lag ${n} ${q(0.5)} ${q(0.99)} ${lags[n - 1].toFixed(2)}\n`);
  await f.close();
}

function run(args) {
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, ...args], {
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

async function main() {
  const rates = arg("rates", "5000,20000,50000").split(",").map(Number);
  const seconds = Number(arg("seconds", "8"));
  const root = mkdtempSync(join(tmpdir(), "shale-lag-"));
  const server = spawn(
    "nats-server",
    ["-js", "-a", "127.0.0.1", "-p", "-1", "-sd", join(root, "js")],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const servers = await new Promise((resolve) => {
    let log = "";
    server.stderr.on("data", (c) => {
      log += c;
      const m = /Listening for client connections on ([\d.]+:\d+)/.exec(log);
      if (m && /Server is ready/.test(log)) resolve(`nats://${m[1]}`);
    });
  });
  server.stderr.resume();
  console.log(
    `follower lag, fillrandom-like (16 B keys, 100 B values), ${seconds} s per rate, loopback`,
  );
  console.log("rate (writes/s)   writes   p50 ms   p99 ms   max ms");
  try {
    for (const rate of rates) {
      const stream = `lag${rate}`;
      const total = rate * seconds;
      const f = run(["follower", join(root, `f${rate}`), servers, stream, String(total)]);
      await new Promise((r) => setTimeout(r, 300)); // the follower needs the stream: retry
      const w = run([
        "writer",
        join(root, `w${rate}`),
        servers,
        stream,
        String(rate),
        String(seconds),
      ]);
      await w;
      const [, n, p50, p99, max] = (await f).trim().split(/\s+/);
      console.log(
        `${String(rate).padStart(15)} ${n.padStart(8)} ${p50.padStart(8)} ${p99.padStart(8)} ${max.padStart(8)}`,
      );
    }
  } finally {
    server.kill("SIGTERM");
    rmSync(root, { recursive: true, force: true });
  }
}

const [role, ...rest] = process.argv.slice(2);
if (role === "writer") await writer(rest[0], rest[1], rest[2], Number(rest[3]), Number(rest[4]));
else if (role === "follower") {
  // The writer creates the stream: wait for it.
  for (;;) {
    try {
      await follower(rest[0], rest[1], rest[2], Number(rest[3]));
      break;
    } catch (e) {
      if (!/does not exist/.test(String(e.message))) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
} else await main();
