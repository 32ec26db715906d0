// Runs a plan against @nxtedition/rocksdb (RocksDB 9.7; ZSTD tables and WAL by default) in
// this child process and prints `RESULT <json>` on one line, then exits without waiting for
// close() (it may never settle). Test-only: see ../producers.test-support.ts.
//
// Plan (argv[2], JSON): { dir, options?, steps: Step[] }; options are RocksLevel's (e.g.
// { walCompression, compression, memtableMemoryBudget, columns: { default: {}, name: {} } };
// with `columns`, "default" must be among them).
// Step: { op: "put" | "delete", cf?, key, value? } (hex) | { op: "scan", cf?, reverse? } |
//   { op: "get", cf?, keys: hex[] } | { op: "fill", cf?, prefix, count, valueSize } (puts
//   `prefix` (hex) ‖ the ASCII decimal i padded to 8 digits -> `fillValue(i, valueSize)`, for
//   i in [0, count): many writes without a long plan) | { op: "settle" } (waits until no
//   flush or compaction is pending or running, so the tables the fills made are on disk) |
//   { op: "close" }. This binding has no flush or compaction call: tables appear when
//   memtables fill. Its write buffer is memtableMemoryBudget / 4 only with a `compaction`
//   option ("level" also leaves levels 0 and 1 uncompressed and compresses 2+ with ZSTD and
//   its dictionary); without one it is 64 MiB.
// Result: { results: (Array<[hexKey, hexValue]> | Array<hex | null>)[] }, one per scan/get.
"use strict";
const { RocksLevel } = require("@nxtedition/rocksdb");

const plan = JSON.parse(process.argv[2]);
const hex = (s) => Buffer.from(s, "hex");
/** The value of fill's entry i: compressible ASCII (the same in producers.test-support.ts). */
const fillValue = (i, size) =>
  Buffer.from(`value-${i}-`.repeat(Math.ceil(size / 8)).slice(0, size));

async function main() {
  const db = new RocksLevel(plan.dir, plan.options ?? {});
  await db.open();
  const column = (cf) => (cf === undefined || cf === "default" ? undefined : db.columns[cf]);
  const results = [];
  let batch = [];
  const drain = async () => {
    if (batch.length > 0) await db.batch(batch);
    batch = [];
  };
  for (const step of plan.steps) {
    const col = column(step.cf);
    const extra = col === undefined ? {} : { column: col };
    switch (step.op) {
      case "put":
        batch.push({ type: "put", key: hex(step.key), value: hex(step.value), ...extra });
        if (batch.length >= 1000) await drain();
        break;
      case "fill":
        for (let i = 0; i < step.count; i++) {
          const key = Buffer.concat([hex(step.prefix), Buffer.from(String(i).padStart(8, "0"))]);
          batch.push({ type: "put", key, value: fillValue(i, step.valueSize), ...extra });
          if (batch.length >= 1000) await drain();
        }
        break;
      case "delete":
        batch.push({ type: "del", key: hex(step.key), ...extra });
        if (batch.length >= 1000) await drain();
        break;
      case "scan": {
        await drain();
        const rows = [];
        const opts = {
          reverse: step.reverse === true,
          keyEncoding: "buffer",
          valueEncoding: "buffer",
          ...extra,
        };
        for await (const [key, value] of db.iterator(opts))
          rows.push([key.toString("hex"), value.toString("hex")]);
        results.push(rows);
        break;
      }
      case "get": {
        await drain();
        const vs = await db.getMany(step.keys.map(hex), { valueEncoding: "buffer", ...extra });
        results.push(vs.map((v) => (v === undefined || v === null ? null : v.toString("hex"))));
        break;
      }
      case "settle": {
        await drain();
        const busy = [
          "rocksdb.mem-table-flush-pending",
          "rocksdb.compaction-pending",
          "rocksdb.num-running-flushes",
          "rocksdb.num-running-compactions",
        ];
        for (let quiet = 0; quiet < 3; ) {
          await new Promise((r) => setTimeout(r, 50));
          quiet = busy.every((p) => Number(db.getProperty(p)) === 0) ? quiet + 1 : 0;
        }
        break;
      }
      case "close":
        await drain();
        await Promise.race([db.close(), new Promise((r) => setTimeout(r, 5000))]);
        break;
      default:
        throw new Error(`unknown step ${step.op}`);
    }
  }
  await drain();
  process.stdout.write(`RESULT ${JSON.stringify({ results })}\n`, () => process.exit(0));
}

main().catch((e) => {
  process.stderr.write(`${e?.stack ?? e}\n`);
  process.exit(1);
});
