// The smoke workload every runtime runs (Node, Bun, Deno; the esbuild bundle): open, 100k
// puts, flush, compaction, reads, scans, close, reopen, and the same on MemoryFileSystem.
// Usage: <runtime> smoke-app.mjs <dir>. Prints what it ran; exits non-zero on any mismatch.
import { MemoryFileSystem, open, ShaleError } from "shale";

const dir = process.argv[2] ?? globalThis.Deno?.args?.[0];
if (dir === undefined) throw new Error("usage: smoke-app.mjs <dir>");
const runtime =
  globalThis.Deno !== undefined
    ? `deno ${globalThis.Deno.version.deno}`
    : globalThis.Bun !== undefined
      ? `bun ${globalThis.Bun.version}`
      : `node ${process.version}`;
const N = 100_000;
const enc = new TextEncoder();
const dec = new TextDecoder();
const key = (i) => `key${String(i).padStart(8, "0")}`;
function check(cond, what) {
  if (!cond) throw new Error(`smoke (${runtime}): ${what}`);
}

async function workload(label, path, options) {
  const t0 = performance.now();
  const db = await open(path, { writeBufferSize: 1 << 20, ...options });
  for (let i = 0; i < N; i++) db.put(key(i), `value${i}`);
  await db.flush();
  for (let i = 0; i < N; i += 2) db.put(key(i), `again${i}`);
  await db.flush();
  await db.compactRange();
  for (const i of [0, 1, 777, 50_001, N - 1]) {
    const want = i % 2 === 0 ? `again${i}` : `value${i}`;
    check(dec.decode(db.get(key(i))) === want, `${label}: get ${key(i)}`);
  }
  check(db.get("missing") === undefined, `${label}: get of a missing key`);
  let n = 0;
  let last = "";
  for (const [k] of db.iterator()) {
    const s = dec.decode(k);
    check(s > last, `${label}: scan order at ${s}`);
    last = s;
    n++;
  }
  check(n === N, `${label}: forward scan saw ${n} of ${N}`);
  const it = db.iterator();
  it.seek(enc.encode(key(N - 10)));
  let tail = 0;
  for (; it.valid(); it.next()) tail++;
  it.close();
  check(tail === 10, `${label}: seek + scan saw ${tail} of 10`);
  const files = db.getProperty("shale.num-files-at-level0");
  await db.close();
  const again = await open(path, options);
  check(dec.decode(again.get(key(N - 1))) === `value${N - 1}`, `${label}: get after reopen`);
  let m = 0;
  for (const _ of again.iterator()) m++;
  check(m === N, `${label}: scan after reopen saw ${m}`);
  await again.close();
  const ms = Math.round(performance.now() - t0);
  console.log(
    `smoke ${runtime} ${label}: open, ${N} puts, 2 flushes, compactRange, gets, scans, close, reopen: ok (${ms} ms, L0 files after compaction: ${files})`,
  );
}

/** Close while background flushes still run (Deno hung here: close waited synchronously). */
async function closeWhileBusy(path) {
  const db = await open(path, { writeBufferSize: 256 << 10 });
  for (let i = 0; i < 20_000; i++) db.put(key(i), `busy${i}`.padEnd(100, "."));
  const t0 = performance.now();
  await db.close();
  const again = await open(path);
  check(dec.decode(again.get(key(19_999))).startsWith("busy19999"), "get after a busy close");
  await again.close();
  console.log(
    `smoke ${runtime} close while flushes run: ok (close took ${Math.round(performance.now() - t0)} ms)`,
  );
}

await workload("node fs", dir);
await closeWhileBusy(`${dir}-busy`);
await workload("MemoryFileSystem", "/mem", { fs: new MemoryFileSystem() });
check(typeof ShaleError === "function", "ShaleError export");

// No native code: after the whole workload (worker threads included: one process), no
// `.node` addon is mapped (msgpackr-extract's was, when @shale/sstable used msgpackr).
{
  let maps;
  try {
    const { readFileSync } = await import("node:fs");
    maps = readFileSync("/proc/self/maps", "utf8");
  } catch {
    console.log(`smoke ${runtime} native addons: not checked (no /proc/self/maps)`);
  }
  if (maps !== undefined) {
    const addons = [...new Set(maps.split("\n").filter((l) => /\.node(\s|$)/.test(l)))];
    check(addons.length === 0, `native addons are loaded: ${addons.join("; ")}`);
    console.log(`smoke ${runtime} native addons: none mapped (/proc/self/maps)`);
  }
}
