/**
 * exportShared / fromShared: a structured-clone round trip in this thread, and a real
 * worker_threads Worker reading the memtable from the same SharedArrayBuffers.
 *
 * The worker runs this package's TypeScript sources (`tsWorker`), so no build is needed.
 */
import {
  bytewiseComparator,
  isShaleError,
  reverseBytewiseComparator,
  toHex,
  ValueKind,
} from "@shale/base";
import { Random, tsWorker } from "@shale/base/testing";
import { describe, expect, it } from "vitest";
import { fingerprint, type SharedReadReply } from "./fingerprint.test-support.js";
import { MemTable, type MemTableOptions, type SharedMemTableData } from "./index.js";
import { INDEX_MIN_ENTRIES } from "./memtable-options.js";

function buildRandom(
  seed: number,
  options: MemTableOptions,
): { mem: MemTable; probes: Uint8Array[] } {
  const rnd = new Random(seed);
  const mem = new MemTable(options);
  const probes: Uint8Array[] = [];
  const kinds = [
    ValueKind.Value,
    ValueKind.Value,
    ValueKind.Merge,
    ValueKind.Deletion,
    ValueKind.SingleDeletion,
  ];
  for (let seq = 1; seq <= 400; seq++) {
    const key = rnd.bytes(1 + rnd.uniform(4), 6);
    probes.push(key);
    if (rnd.oneIn(25)) {
      const end = rnd.bytes(1 + rnd.uniform(4), 6);
      const cmp = options.comparator ?? bytewiseComparator;
      const [s, e] = cmp.compare(key, end) <= 0 ? [key, end] : [end, key];
      mem.add(seq, ValueKind.RangeDeletion, s, e);
    } else {
      const value = rnd.bytes(rnd.oneIn(30) ? 3000 : rnd.uniform(20));
      mem.add(seq, kinds[rnd.uniform(kinds.length)]!, key, value);
    }
  }
  mem.seal();
  return { mem, probes };
}

const WORKER = `
const { readShared } = await import(workerData.support);
parentPort.postMessage(workerData.jobs.map((j) => readShared(j.data, j.probes, j.reverse)));
`;

interface Job {
  data: SharedMemTableData;
  probes: string[];
  reverse: boolean;
}

/** Runs `readShared` on each job in one worker thread (loading the TS hooks once). */
function runWorker(jobs: Job[]): Promise<SharedReadReply[]> {
  return new Promise((resolve, reject) => {
    const worker = tsWorker(WORKER, {
      support: new URL("./fingerprint.test-support.ts", import.meta.url).href,
      jobs,
    });
    worker.once("message", (m: SharedReadReply[]) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`worker exited with ${code}`)));
  });
}

describe("exportShared / fromShared", () => {
  it("survives structuredClone with identical iteration and gets, sharing the buffers", () => {
    for (const options of [
      {},
      { arenaChunkSize: 512 },
      { comparator: reverseBytewiseComparator },
    ]) {
      const { mem, probes } = buildRandom(11, options);
      const data = mem.exportShared();
      const clone = structuredClone(data);
      const reopened = MemTable.fromShared(clone, options);
      expect(fingerprint(reopened, probes)).toEqual(fingerprint(mem, probes));
      expect(reopened.isSealed).toBe(true);
      expect(clone.entryChunks.every((b) => b instanceof SharedArrayBuffer)).toBe(true);
      // Shared, not copied: a byte written through the original is seen through the clone.
      const original = new Uint8Array(data.entryChunks[0]!);
      const before = original[0]!;
      original[0] = before ^ 0xff;
      expect(new Uint8Array(clone.entryChunks[0]!)[0]).toBe(before ^ 0xff);
      original[0] = before;
    }
  });

  it("requires a sealed memtable and the same comparator", () => {
    const mem = new MemTable();
    mem.add(1, ValueKind.Value, new Uint8Array([1]), new Uint8Array([2]));
    expect(
      isShaleError(
        catching(() => mem.exportShared()),
        "InvalidArgument",
      ),
    ).toBe(true);
    // Enough entries for the hash index (made at INDEX_MIN_ENTRIES).
    for (let i = 2; i <= INDEX_MIN_ENTRIES; i++) {
      mem.add(i, ValueKind.Value, new Uint8Array([i]), new Uint8Array([2]));
    }
    mem.seal();
    const data = mem.exportShared();
    expect(
      isShaleError(
        catching(() => MemTable.fromShared(data, { comparator: reverseBytewiseComparator })),
        "InvalidArgument",
      ),
    ).toBe(true);
    expect(
      isShaleError(
        catching(() => MemTable.fromShared({ ...data, version: data.version + 1 })),
        "InvalidArgument",
      ),
    ).toBe(true);
    expect(() => MemTable.fromShared({ ...data, numEntries: -1 })).toThrow(TypeError);
    expect(() => MemTable.fromShared(null as unknown as SharedMemTableData)).toThrow(TypeError);
    expect(data.index).not.toBeNull();
    const badIndex = { ...data, index: { ...data.index!, count: -1 } };
    expect(() => MemTable.fromShared(badIndex)).toThrow(TypeError);
    const oddTable = { ...data, index: { table: new SharedArrayBuffer(24), count: 0 } };
    expect(
      isShaleError(
        catching(() => MemTable.fromShared(oddTable)),
        "InvalidArgument",
      ),
    ).toBe(true);
    expect(() =>
      MemTable.fromShared({ ...data, points: null as unknown as typeof data.points }),
    ).toThrow(TypeError);
    const reopened = MemTable.fromShared(data);
    expect(
      isShaleError(
        catching(() => reopened.add(2, ValueKind.Value, new Uint8Array([1]), new Uint8Array(0))),
        "Closed",
      ),
    ).toBe(true);
  });

  it("reopens a memtable built without a hash index, which gets from its tree", () => {
    const { mem, probes } = buildRandom(8, { hashIndex: false });
    const data = mem.exportShared();
    expect(data.index).toBeNull();
    const copy = MemTable.fromShared(structuredClone(data));
    expect(fingerprint(copy, probes)).toEqual(fingerprint(mem, probes));
    const indexed = buildRandom(8, {}).mem;
    expect(fingerprint(indexed, probes).gets).toEqual(fingerprint(mem, probes).gets);
  });

  it("is read by a worker thread with the same results", async () => {
    const cases = [false, true].map((reverse) => {
      const options = reverse
        ? { comparator: reverseBytewiseComparator, arenaChunkSize: 1024 }
        : {};
      return { reverse, ...buildRandom(reverse ? 5 : 6, options) };
    });
    const replies = await runWorker(
      cases.map((c) => ({
        data: c.mem.exportShared(),
        probes: c.probes.map(toHex),
        reverse: c.reverse,
      })),
    );
    expect(replies).toHaveLength(2);
    for (let i = 0; i < cases.length; i++) {
      const { mem, probes } = cases[i]!;
      expect(replies[i]!.fingerprint).toEqual(fingerprint(mem, probes));
      expect(replies[i]!.addError).toBe("Closed");
      expect(replies[i]!.sealed).toBe(true);
    }
  });
});

function catching(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}
