/**
 * The workload input of memtable-bench.ts: N 16-byte keys with 100-byte values, in one of two
 * shapes, and the orders the workloads visit them in (xorshift from a fixed seed: the same
 * data for every contender and every run).
 *
 *   random      every byte random; inserted in the order drawn
 *   sequential  "user" + 4 zero bytes + the 8-byte big-endian index (db_bench's fillseq
 *               shape: a long shared prefix); inserted in ascending order
 *
 * Absent keys (for the misses) are random keys whose first byte is 0xfe: neither shape makes
 * such a key.
 */

export const KEY_SIZE = 16;
export const VALUE_SIZE = 100;

export type KeyShape = "random" | "sequential";

/** The workload input of one size and key shape. */
export interface Data {
  n: number;
  keys: Uint8Array[];
  values: Uint8Array[];
  missing: Uint8Array[];
  /** A random order of 0 .. n-1 for gets, and one for seeks. */
  getOrder: Int32Array;
  seekOrder: Int32Array;
  seeks: number;
}

let state = 0x2545f491;
function nextRandom(): number {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return state >>> 0;
}

function randomKey(): Uint8Array {
  const k = new Uint8Array(KEY_SIZE);
  for (let i = 0; i < KEY_SIZE; i += 4) {
    const r = nextRandom();
    k[i] = r >>> 24;
    k[i + 1] = r >>> 16;
    k[i + 2] = r >>> 8;
    k[i + 3] = r;
  }
  return k;
}

function sequentialKey(i: number): Uint8Array {
  const k = new Uint8Array(KEY_SIZE);
  k[0] = 0x75; // u
  k[1] = 0x73; // s
  k[2] = 0x65; // e
  k[3] = 0x72; // r
  const high = Math.floor(i / 4294967296);
  new DataView(k.buffer).setUint32(8, high);
  new DataView(k.buffer).setUint32(12, i >>> 0);
  return k;
}

function shuffled(n: number): Int32Array {
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = nextRandom() % (i + 1);
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  return order;
}

let valueSource: Uint8Array | undefined;

export function makeData(n: number, shape: KeyShape): Data {
  if (valueSource === undefined) {
    valueSource = new Uint8Array(1 << 20);
    for (let i = 0; i < valueSource.length; i++) valueSource[i] = nextRandom();
  }
  const keys: Uint8Array[] = [];
  const values: Uint8Array[] = [];
  const missing: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    keys.push(shape === "random" ? randomKey() : sequentialKey(i));
    const v = (i * 997) % (valueSource.length - VALUE_SIZE);
    values.push(valueSource.subarray(v, v + VALUE_SIZE));
    const absent = randomKey();
    absent[0] = 0xfe;
    missing.push(absent);
  }
  return {
    n,
    keys,
    values,
    missing,
    getOrder: shuffled(n),
    seekOrder: shuffled(n),
    seeks: Math.min(n, 100_000),
  };
}

/** One JavaScript bytewise comparator, the same for every peer. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}
