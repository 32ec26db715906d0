/**
 * Test helper shared by the partial-write tests (short-writes.test.ts, disk-full.test.ts): a
 * model-checked workload of puts, overwrites and deletes (every 10th write synced) that runs
 * until it is done or a write fails, and the check of a reopened database against it.
 *
 * The model holds what was acknowledged (a write that returned). The one write that failed,
 * if any, is "uncertain": after reopen its key may hold the old or the new value. Nothing
 * else may differ, and no key outside the model may appear.
 */
import { Random } from "@shale/base/testing";
import type { DB } from "../db.js";

export interface WorkloadResult {
  /** Acknowledged state: key -> value, or undefined for a deleted key. */
  model: Map<string, string | undefined>;
  /** The key of the failed write and the value it tried to write (undefined: a delete). */
  uncertain: { key: string; value: string | undefined } | undefined;
  /** The error that stopped the workload, if one did. */
  error: unknown;
  acknowledged: number;
}

/**
 * Runs up to `ops` writes on `db` (`keySpace` keys k000000...; values 40..400 bytes), yielding to
 * the event loop every 100 writes so that flushes and compactions land. Stops at the first
 * failed write.
 */
export async function runWorkload(
  db: DB,
  seed: number,
  ops: number,
  keySpace = 400,
): Promise<WorkloadResult> {
  const rnd = new Random(seed);
  const model = new Map<string, string | undefined>();
  let acknowledged = 0;
  for (let i = 0; i < ops; i++) {
    const key = `k${String(rnd.uniform(keySpace)).padStart(6, "0")}`;
    const del = model.get(key) !== undefined && rnd.uniform(100) < 20;
    const value = del ? undefined : `${key}-${i}-${"x".repeat(40 + rnd.uniform(360))}`;
    const options = i % 10 === 9 ? { sync: true } : undefined;
    try {
      if (value === undefined) db.delete(key, options);
      else db.put(key, value, options);
    } catch (error) {
      return { model, uncertain: { key, value }, error, acknowledged };
    }
    model.set(key, value);
    acknowledged++;
    if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
  }
  return { model, uncertain: undefined, error: undefined, acknowledged };
}

/** Differences between a reopened `db` and the workload's model (empty when all is right). */
export function checkAgainstModel(db: DB, result: WorkloadResult): string[] {
  const problems: string[] = [];
  const decoder = new TextDecoder();
  const read = (key: string): string | undefined => {
    const v = db.get(key);
    return v === undefined ? undefined : decoder.decode(v);
  };
  for (const [key, expected] of result.model) {
    if (result.uncertain?.key === key) continue;
    const got = read(key);
    if (got !== expected) problems.push(`${key}: expected ${short(expected)}, got ${short(got)}`);
  }
  const u = result.uncertain;
  if (u !== undefined) {
    const got = read(u.key);
    if (got !== u.value && got !== result.model.get(u.key)) {
      problems.push(`${u.key} (the failed write): got ${short(got)}`);
    }
  }
  for (const [k] of db.iterator()) {
    const key = decoder.decode(k);
    if (!result.model.has(key) && u?.key !== key) problems.push(`${key}: never written`);
  }
  return problems;
}

function short(v: string | undefined): string {
  return v === undefined ? "(none)" : v.slice(0, 16);
}
