/**
 * Tables with and without the data block hash index (`dataBlockIndexType`) against a model:
 * random user keys with many versions (user keys spanning restart runs and blocks), random
 * snapshots, gets, multiGets and seeks. Both tables must answer as the model does.
 */
import { LookupResult, LookupState, MAX_SEQ, toHex, ValueKind } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TableBuilderOptions } from "./builder-options.js";
import { buildTable, icmp, ikey, openTable, tableLayout } from "./table.test-support.js";
import type { TableReader } from "./table-reader.js";

interface Entry {
  user: Uint8Array;
  seq: number;
  kind: number;
  value: Uint8Array;
}

interface Answer {
  state: number;
  value: string | undefined;
  operands: string[];
}

function model(entries: readonly Entry[], user: Uint8Array, snapshot: number): Answer {
  const out: Answer = { state: LookupState.NotFound, value: undefined, operands: [] };
  const versions = entries
    .filter((e) => Buffer.compare(e.user, user) === 0 && e.seq <= snapshot)
    .sort((a, b) => b.seq - a.seq);
  for (const e of versions) {
    if (e.kind === ValueKind.Value) {
      out.state = LookupState.Found;
      out.value = toHex(e.value);
      return out;
    }
    if (e.kind === ValueKind.Merge) {
      out.operands.push(toHex(e.value));
      out.state = LookupState.Merging;
      continue;
    }
    out.state = LookupState.Deleted;
    return out;
  }
  return out;
}

function answer(r: LookupResult): Answer {
  return {
    state: r.state,
    value: r.state === LookupState.Found ? toHex(r.value!) : undefined,
    operands: r.operands.map(toHex),
  };
}

/** The first `n` entries from a seek to `user`@snapshot, as hex strings. */
function seekRun(reader: TableReader, user: Uint8Array, snapshot: number, n: number): string[] {
  const it = reader.newIterator();
  const out: string[] = [];
  try {
    for (it.seek(ikey(user, snapshot, ValueKind.Value)); it.valid() && out.length < n; it.next())
      out.push(`${toHex(it.key())}=${toHex(it.value())}`);
  } finally {
    it.close();
  }
  return out;
}

const userArb = fc.uint8Array({ minLength: 0, maxLength: 3, max: 4 });

const scenario = fc
  .record({
    points: fc.array(
      fc.record({
        user: userArb,
        kind: fc.constantFrom(
          ValueKind.Value,
          ValueKind.Value,
          ValueKind.Merge,
          ValueKind.Deletion,
          ValueKind.SingleDeletion,
        ),
        value: fc.uint8Array({ maxLength: 12 }),
      }),
      { minLength: 1, maxLength: 250 },
    ),
    blockSize: fc.constantFrom(48, 160, 4096),
    restartInterval: fc.constantFrom(1, 2, 4, 16),
    ratio: fc.constantFrom(0.25, 0.75, 1, 4),
    indexType: fc.constantFrom<NonNullable<TableBuilderOptions["indexType"]>>(
      "binarySearch",
      "twoLevelIndex",
    ),
    queries: fc.array(fc.record({ user: userArb, snapshot: fc.integer({ min: 0, max: 260 }) }), {
      minLength: 10,
      maxLength: 40,
    }),
  })
  .map((s) => ({
    ...s,
    // Distinct seqs: entry i gets seq i + 1.
    entries: s.points.map((p, i): Entry => ({ ...p, seq: i + 1 })),
  }));

describe("data block hash index: tables with and without it answer as the model", () => {
  it("gets, multiGets and seeks at random snapshots", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const sorted = s.entries
          .map((e) => ({ key: ikey(e.user, e.seq, e.kind), value: e.value }))
          .sort((a, b) => icmp.compare(a.key, b.key));
        const keys = sorted.map((e) => e.key);
        const values = sorted.map((e) => e.value);
        // No filter: every get reaches the data blocks.
        const common: TableBuilderOptions = {
          blockSize: s.blockSize,
          blockRestartInterval: s.restartInterval,
          bitsPerKey: 0,
          compression: "none",
          indexType: s.indexType,
          metadataBlockSize: 64,
        };
        const plain = buildTable(keys, values, common);
        const hashed = buildTable(keys, values, {
          ...common,
          dataBlockIndexType: "binaryAndHash",
          dataBlockHashTableUtilRatio: s.ratio,
        });
        // Every data block carries a hash index (none here has 254 runs or 64 KiB).
        if (s.indexType === "binarySearch") {
          const bytes = hashed.fs.readFile(hashed.path);
          for (const h of tableLayout(hashed).data)
            expect(bytes[h.offset + h.size - 1]! & 0x80, `block @${h.offset}`).toBe(0x80);
        }
        const readers = [openTable(plain), openTable(hashed)];
        const probes: { user: Uint8Array; snapshot: number }[] = [...s.queries];
        for (const e of s.entries.slice(0, 30)) {
          probes.push({ user: e.user, snapshot: e.seq });
          probes.push({ user: e.user, snapshot: Math.max(0, e.seq - 1) });
        }
        probes.push({ user: Uint8Array.of(9, 9), snapshot: MAX_SEQ });
        for (const q of probes) {
          const expected = model(s.entries, q.user, q.snapshot);
          const runs: string[][] = [];
          for (const reader of readers) {
            const r = reader.get(q.user, q.snapshot, new LookupResult());
            expect(answer(r), `get ${toHex(q.user)}@${q.snapshot}`).toEqual(expected);
            runs.push(seekRun(reader, q.user, q.snapshot, 3));
          }
          expect(runs[1], `seek ${toHex(q.user)}@${q.snapshot}`).toEqual(runs[0]);
        }
        // multiGet: the queries sorted, at one snapshot.
        const snapshot = s.queries[0]!.snapshot;
        const users = probes.map((q) => q.user).sort((a, b) => Buffer.compare(a, b));
        for (const reader of readers) {
          const results = users.map(() => new LookupResult());
          reader.multiGet(users, results, undefined, 0, users.length, snapshot, undefined, {
            settled() {},
          });
          users.forEach((u, i) => {
            expect(answer(results[i]!), `multiGet ${toHex(u)}@${snapshot}`).toEqual(
              model(s.entries, u, snapshot),
            );
          });
        }
        for (const reader of readers) reader.close();
      }),
      { numRuns: 80 },
    );
  });
});
