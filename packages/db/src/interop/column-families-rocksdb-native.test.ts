/**
 * Column families against rocksdb-native (RocksDB 10.5.1, XXH3), both ways: the binding
 * writes several families (tables, and a WAL it leaves unflushed), shale opens the
 * directory, reads every key and scans both ways in each family, writes into each (one batch
 * across all of them), creates one family and drops one the binding made, and closes; the
 * binding reopens (naming every family left, as RocksDB requires: the dropped one would fail
 * the open) and reads shale's writes in each family. The binding's build has no Snappy, so
 * shale writes `compression: "none"`. Skipped, with the reason printed, where the binding
 * does not load.
 */
import { join } from "node:path";
import { toHex } from "@shale/base";
import { FormatVersion } from "@shale/sstable";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { WriteBatch } from "../write/write-batch.js";
import {
  fromHex,
  shaleReverseScan,
  shaleScan,
  sortedEntries,
  tempDir,
} from "./interop.test-support.js";
import {
  type ProducerPlan,
  type ProducerStep,
  producerUnavailableReason,
  runProducer,
} from "./producers.test-support.js";

const unavailable = producerUnavailableReason("rocksdb-native");
if (unavailable !== undefined)
  console.log(`column families with rocksdb-native: skipped — ${unavailable}`);

/**
 * The binding's tables: its default, format 6, where shale reads it; else the newest format
 * shale reads (the families are the subject here; format-version tests have their own file).
 */
const tableFormatVersion = Math.min(6, FormatVersion.LATEST);

const tmp = tempDir("cf-native");
afterAll(() => tmp.remove());

const hex = (s: string) => toHex(new TextEncoder().encode(s));
type Model = Map<string, string>;

/** A model's entries in key order, as the binding's scans return them. */
function sorted(model: Model): Array<[string, string]> {
  return sortedEntries(model).map(({ key, value }) => [key, value]);
}

/** Every get and both scans of each family equal its model. */
function expectFamilies(db: DB, models: Map<string, Model>): void {
  expect(db.listColumnFamilies().sort()).toEqual([...models.keys()].sort());
  for (const [cf, model] of models) {
    const h = db.columnFamily(cf);
    const want = sortedEntries(model);
    expect(shaleScan(h), `${cf} forwards`).toEqual(want);
    expect(shaleReverseScan(h), `${cf} backwards`).toEqual([...want].reverse());
    for (const { key, value } of want) {
      const got = h.get(fromHex(key));
      expect(got === undefined ? undefined : toHex(got), `${cf} get`).toBe(value);
    }
  }
}

/** Steps that write `n` keys into `cf`, recorded in its model. */
function puts(cf: string, model: Model, prefix: string, n: number, size: number): ProducerStep[] {
  const steps: ProducerStep[] = [];
  for (let i = 0; i < n; i++) {
    const key = hex(`${prefix}${String(i).padStart(5, "0")}`);
    const value = hex(`${cf}/${prefix}/${i}/`.padEnd(size, String.fromCharCode(97 + (i % 26))));
    steps.push({ op: "put", cf, key, value });
    model.set(key, value);
  }
  return steps;
}

/** The binding's scans (both ways) and gets of every family, checked against the models. */
function readBackSteps(models: Map<string, Model>): ProducerStep[] {
  const steps: ProducerStep[] = [];
  for (const [cf, model] of models) {
    steps.push({ op: "scan", cf }, { op: "scan", cf, reverse: true });
    steps.push({ op: "get", cf, keys: [...model.keys()] });
  }
  return steps;
}

function expectReadBack(results: ReturnType<typeof runProducer>, models: Map<string, Model>) {
  let i = 0;
  for (const [cf, model] of models) {
    const want = sorted(model);
    expect(results[i++], `rocksdb-native scan ${cf}`).toEqual(want);
    expect(results[i++], `rocksdb-native reverse scan ${cf}`).toEqual([...want].reverse());
    expect(results[i++], `rocksdb-native get ${cf}`).toEqual([...model.values()]);
  }
}

/** shale's writes into every family of an open db, in the models too. */
async function shaleWrites(db: DB, models: Map<string, Model>, created: string): Promise<void> {
  const families = [...models.keys()];
  for (const cf of families) {
    const h = db.columnFamily(cf);
    const model = models.get(cf)!;
    for (let i = 0; i < 30; i++) {
      const key = hex(`shale-${String(i).padStart(3, "0")}`);
      const value = hex(`${cf} from shale ${i}`);
      h.put(fromHex(key), fromHex(value));
      model.set(key, value);
    }
    const [first] = sorted(model)[0]!;
    h.delete(fromHex(first));
    model.delete(first);
  }
  const batch = new WriteBatch();
  for (const cf of families) {
    batch.put("one-batch", `into ${cf}`, db.columnFamily(cf));
    models.get(cf)!.set(hex("one-batch"), hex(`into ${cf}`));
  }
  db.write(batch);
  const made = await db.createColumnFamily(created, { compression: "none" });
  const madeModel: Model = new Map();
  for (let i = 0; i < 10; i++) {
    made.put(`c${i}`, `made ${i}`);
    madeModel.set(hex(`c${i}`), hex(`made ${i}`));
  }
  models.set(created, madeModel);
  await db.columnFamily(families[1]!).flush();
  await made.flush();
}

describe.skipIf(unavailable !== undefined)("column families with rocksdb-native", () => {
  const cases: Array<{ name: string; unflushed: boolean }> = [
    { name: "tables in every family, a WAL left with writes to two", unflushed: true },
    { name: "every family flushed and compacted (Ribbon and Bloom filters)", unflushed: false },
  ];
  for (const c of cases) {
    it(`binding writes, shale reads and writes, binding reads back: ${c.name}`, async () => {
      const dir = join(tmp.path, c.unflushed ? "unflushed" : "flushed");
      const families = ["default", "alpha", "beta", "doomed"];
      const models = new Map<string, Model>(families.map((cf) => [cf, new Map()]));
      const columnFamilies: ProducerPlan["columnFamilies"] = {
        default: { tableFormatVersion },
        alpha: { tableFormatVersion, ribbonBitsPerKey: 10 },
        beta: { tableFormatVersion, bloomBitsPerKey: 10, tableBlockSize: 1024 },
        doomed: { tableFormatVersion },
      };
      const steps: ProducerStep[] = [];
      for (const cf of families) {
        // (The plan travels on the command line: doomed gets a few keys only.)
        steps.push(...puts(cf, models.get(cf)!, "k", cf === "doomed" ? 10 : 200, 60));
        steps.push({ op: "flush", cf });
      }
      // Deletes, a range deletion and overwrites after the first tables.
      const alpha = models.get("alpha")!;
      steps.push({ op: "delete", cf: "alpha", key: hex("k00003") });
      alpha.delete(hex("k00003"));
      steps.push({ op: "deleteRange", cf: "beta", start: hex("k00050"), end: hex("k00060") });
      for (const k of [...models.get("beta")!.keys()])
        if (k >= hex("k00050") && k < hex("k00060")) models.get("beta")!.delete(k);
      steps.push(...puts("alpha", alpha, "k001", 20, 30)); // overwrites k00100..k00119
      steps.push(...puts("default", models.get("default")!, "w", 40, 20));
      if (c.unflushed) {
        steps.push(...puts("beta", models.get("beta")!, "wal", 25, 40));
        steps.push({ op: "flush", cf: "default" });
        // alpha's and beta's last writes stay in the WAL only.
      } else {
        for (const cf of families) steps.push({ op: "flush", cf }, { op: "compact", cf });
      }
      runProducer("rocksdb-native", {
        dir,
        options: { createIfMissing: true, createMissingColumnFamilies: true },
        columnFamilies,
        steps,
      });

      expect(DB.listColumnFamilies(dir).sort()).toEqual([...families].sort());
      let db = await DB.open(dir, { createIfMissing: false, compression: "none" });
      try {
        expectFamilies(db, models);
        // A family the binding made, dropped by shale: the binding must not find it again.
        await db.dropColumnFamily("doomed");
        models.delete("doomed");
        await shaleWrites(db, models, "gamma");
        expectFamilies(db, models);
      } finally {
        await db.close();
      }
      db = await DB.open(dir, { createIfMissing: false, compression: "none" });
      try {
        expectFamilies(db, models);
      } finally {
        await db.close();
      }

      // The binding reopens shale's directory (every family named, as RocksDB requires).
      const results = runProducer("rocksdb-native", {
        dir,
        options: { createIfMissing: false },
        columnFamilies: {
          default: columnFamilies.default!,
          alpha: columnFamilies.alpha!,
          beta: columnFamilies.beta!,
          gamma: { tableFormatVersion },
        },
        steps: readBackSteps(models),
      });
      expectReadBack(results, models);
    });
  }
});
