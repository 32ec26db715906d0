/**
 * Test helper: reads a set of keys through every read path of the database — `get`,
 * `getMany`, a forward scan, a reverse scan (the iterable protocol with `reverse: true`), and
 * a `seek` / `seekForPrev` to each key — checks that all of them agree, and returns what
 * they read. Keys are ASCII strings; the database must hold no other keys.
 */
import { bytesEqual } from "@shale/base";
import { expect } from "vitest";
import type { ReadOptions } from "../core/options.js";
import type { DB } from "../db.js";

const decoder = new TextDecoder();

export const hex = (b: Uint8Array | undefined): string | undefined =>
  b === undefined ? undefined : Buffer.from(b).toString("hex");

/** Present keys only, in ascending key order, values as hex (vitest diffs them well). */
function presentHex(m: ReadonlyMap<string, Uint8Array | undefined>): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of [...m].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)))
    if (v !== undefined) out.push([k, hex(v)!]);
  return out;
}

/**
 * The value of each key (undefined when absent) as read by `get`, after checking that
 * `getMany`, forward and reverse scans and seeks to each key read exactly the same.
 */
export function readAllPaths(
  db: DB,
  keys: readonly string[],
  options?: ReadOptions,
): Map<string, Uint8Array | undefined> {
  const label = options?.snapshot !== undefined ? `at snapshot ${options.snapshot.seq}` : "now";
  const viaGet = new Map<string, Uint8Array | undefined>();
  for (const k of keys) viaGet.set(k, db.get(k, options)?.slice());
  const want = presentHex(viaGet);

  const many = db.getMany(keys, options);
  const viaMany = new Map<string, Uint8Array | undefined>();
  for (let i = 0; i < keys.length; i++) viaMany.set(keys[i]!, many[i]?.slice());
  expect(presentHex(viaMany), `getMany ${label}`).toEqual(want);

  const forward = new Map<string, Uint8Array | undefined>();
  const order: string[] = [];
  const it = db.iterator(options);
  try {
    for (it.seekToFirst(); it.valid(); it.next()) {
      const k = decoder.decode(it.key());
      order.push(k);
      forward.set(k, it.value().slice());
    }
  } finally {
    it.close();
  }
  expect(presentHex(forward), `forward scan ${label}`).toEqual(want);
  expect(order, `forward scan order ${label}`).toEqual(want.map(([k]) => k));

  const backward = Array.from(db.iterator({ ...options, reverse: true }));
  expect(
    backward.map(([k, v]) => [decoder.decode(k), hex(v)]),
    `reverse scan ${label}`,
  ).toEqual([...want].reverse());

  const seeker = db.iterator(options);
  try {
    for (const [k, v] of want) {
      seeker.seek(k);
      expect(seeker.valid() && decoder.decode(seeker.key()), `seek ${k} ${label}`).toBe(k);
      expect(hex(seeker.value()), `seek ${k} ${label}`).toBe(v);
      seeker.seekForPrev(k);
      expect(seeker.valid() && decoder.decode(seeker.key()), `seekForPrev ${k} ${label}`).toBe(k);
      expect(bytesEqual(seeker.value(), Buffer.from(v, "hex")), `seekForPrev ${k}`).toBe(true);
    }
  } finally {
    seeker.close();
  }
  return viaGet;
}
