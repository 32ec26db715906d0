// Runs a plan against rocksdb-native (Holepunch's binding, RocksDB 10.5.1) in this child
// process and prints `RESULT <json>` on one line, then exits without waiting for close()
// (the binding's close may never settle). Test-only: see ../producers.test-support.ts.
//
// Plan (argv[2], JSON): { dir, options?, columnFamilies?: { name: ColumnFamilyOptions },
//   filter?: { ribbon?: number, bloom?: number }, steps: Step[] }
// Step: { op: "put" | "delete", cf?, key, value? } (hex) | { op: "deleteRange", cf?, start,
//   end } | { op: "flush", cf? } | { op: "compact", cf? } | { op: "scan", cf?, reverse? } |
//   { op: "get", cf?, keys: hex[] } | { op: "close" }.
// Result: { results: (Array<[hexKey, hexValue]> | Array<hex | null>)[] }, one per scan/get.
"use strict";
const RocksDB = require("rocksdb-native");

const plan = JSON.parse(process.argv[2]);
const hex = (s) => Buffer.from(s, "hex");

function familyOptions(name) {
  const o = { ...(plan.columnFamilies?.[name] ?? {}) };
  if (o.ribbonBitsPerKey !== undefined) {
    o.filterPolicy = new RocksDB.RibbonFilterPolicy(
      o.ribbonBitsPerKey,
      o.ribbonBloomBeforeLevel ?? 0,
    );
    delete o.ribbonBitsPerKey;
    delete o.ribbonBloomBeforeLevel;
  }
  if (o.bloomBitsPerKey !== undefined) {
    o.filterPolicy = new RocksDB.BloomFilterPolicy(o.bloomBitsPerKey);
    delete o.bloomBitsPerKey;
  }
  return new RocksDB.ColumnFamily(name, o);
}

async function main() {
  const names = Object.keys(plan.columnFamilies ?? {}).filter((n) => n !== "default");
  const db = new RocksDB(plan.dir, {
    ...(plan.options ?? {}),
    columnFamily: familyOptions("default"),
    columnFamilies: names.map(familyOptions),
  });
  await db.ready();
  const familyDb = (cf) => (cf === undefined || cf === "default" ? db : db.columnFamily(cf));
  const results = [];
  for (const step of plan.steps) {
    const s = familyDb(step.cf);
    switch (step.op) {
      case "put":
      case "delete":
      case "deleteRange": {
        const w = s.write();
        if (step.op === "put") w.tryPut(hex(step.key), hex(step.value));
        else if (step.op === "delete") w.tryDelete(hex(step.key));
        else w.tryDeleteRange(hex(step.start), hex(step.end));
        await w.flush();
        break;
      }
      case "flush":
        await s.flush();
        break;
      case "compact":
        await s.compactRange();
        break;
      case "scan": {
        const rows = [];
        for await (const { key, value } of s.iterator({ reverse: step.reverse === true }))
          rows.push([key.toString("hex"), value.toString("hex")]);
        results.push(rows);
        break;
      }
      case "get": {
        const r = s.read();
        const ps = step.keys.map((k) => r.get(hex(k)));
        r.tryFlush();
        results.push((await Promise.all(ps)).map((v) => (v === null ? null : v.toString("hex"))));
        break;
      }
      case "close":
        await Promise.race([db.close(), new Promise((r) => setTimeout(r, 5000))]);
        break;
      default:
        throw new Error(`unknown step ${step.op}`);
    }
  }
  process.stdout.write(`RESULT ${JSON.stringify({ results })}\n`, () => process.exit(0));
}

main().catch((e) => {
  process.stderr.write(`${e?.stack ?? e}\n`);
  process.exit(1);
});
