/**
 * Packing batches into one message and taking a message's suffix: the packed batch holds
 * the operations of its parts in order, at the sequence of the first (checked against a
 * database that writes the parts one by one); a suffix holds the operations after the
 * skipped ones, each in its column family.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DB, FamilyId, WriteBatch } from "@shale/db";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BATCH_HEADER, batchSuffix, PackedBatch, packBatches } from "./pack.js";

type Op =
  | { type: "put" | "merge"; key: string; value: string; family: number }
  | { type: "delete" | "singleDelete"; key: string; family: number }
  | { type: "deleteRange"; key: string; end: string; family: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    type: fc.constantFrom("put" as const, "merge" as const),
    key: fc.string({ maxLength: 6 }),
    value: fc.string({ maxLength: 20 }),
    family: fc.constantFrom(0, 0, 3),
  }),
  fc.record({
    type: fc.constantFrom("delete" as const, "singleDelete" as const),
    key: fc.string({ maxLength: 6 }),
    family: fc.constantFrom(0, 0, 3),
  }),
  fc.record({
    type: fc.constant("deleteRange" as const),
    key: fc.constant("a"),
    end: fc.constant("b"),
    family: fc.constantFrom(0, 3),
  }),
);

function batchOf(ops: readonly Op[]): WriteBatch {
  const b = new WriteBatch();
  for (const op of ops) {
    const family = op.family === 0 ? undefined : new FamilyId(op.family);
    if (op.type === "put") b.put(op.key, op.value, family);
    else if (op.type === "merge") b.merge(op.key, op.value, family);
    else if (op.type === "delete") b.delete(op.key, family);
    else if (op.type === "singleDelete") b.singleDelete(op.key, family);
    else if (op.type === "deleteRange") b.deleteRange(op.key, op.end, family);
  }
  return b;
}

/** `batch.data()` with its sequence set to `sequence`. */
function dataAt(batch: WriteBatch, sequence: number): Uint8Array {
  const d = batch.data();
  const v = new DataView(d.buffer, d.byteOffset);
  v.setUint32(0, sequence >>> 0, true);
  v.setUint32(4, Math.floor(sequence / 2 ** 32), true);
  return d;
}

const opsOf = (b: WriteBatch) => [...b];

describe("packBatches", () => {
  it("concatenates consecutive batches into one at the first's sequence", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(opArb, { maxLength: 5 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 2 ** 40 }),
        (runs, start) => {
          let seq = start;
          const parts: Uint8Array[] = [];
          const all: Op[] = [];
          for (const run of runs) {
            parts.push(dataAt(batchOf(run), seq));
            seq += run.length;
            all.push(...run);
          }
          const packed = WriteBatch.fromData(packBatches(parts, start, seq - start));
          expect(packed.sequence).toBe(start);
          expect(packed.count).toBe(all.length);
          expect(opsOf(packed)).toEqual(opsOf(batchOf(all)));
        },
      ),
    );
  });

  it("returns a single part as it is", () => {
    const d = dataAt(new WriteBatch().put("k", "v"), 9);
    expect(packBatches([d], 9, 1)).toBe(d);
  });

  it("writes the same database as the parts written one by one", async () => {
    const root = mkdtempSync(join(tmpdir(), "shale-pack-"));
    try {
      const one = await DB.open(join(root, "one"), { mergeOperator: "stringappend" });
      const packed = await DB.open(join(root, "packed"), { mergeOperator: "stringappend" });
      const runs = [
        batchOf([{ type: "put", key: "a", value: "1", family: 0 }]),
        batchOf([
          { type: "merge", key: "a", value: "2", family: 0 },
          { type: "delete", key: "b", family: 0 },
        ]),
        batchOf([{ type: "put", key: "c", value: "3", family: 0 }]),
      ];
      const parts: Uint8Array[] = [];
      let seq = 1;
      for (const b of runs) {
        parts.push(dataAt(b, seq));
        seq += b.count;
        one.write(b);
      }
      packed.write(WriteBatch.fromData(packBatches(parts, 1, seq - 1)));
      expect(packed.latestSequence).toBe(one.latestSequence);
      expect([...packed.iterator()]).toEqual([...one.iterator()]);
      await one.close();
      await packed.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("PackedBatch", () => {
  it("splits a feed into messages that hold every batch once, in order, within the size", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(opArb, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.integer({ min: 20, max: 400 }),
        (runs, start, maxBytes) => {
          // The publisher's loop (publish-loop.ts): one builder, reused message after message.
          let seq = start;
          const feed = runs.map((run) => {
            const d = dataAt(batchOf(run), seq);
            seq += run.length;
            return d;
          });
          const packed = new PackedBatch();
          const messages: { data: Uint8Array; parts: number; copy: Uint8Array }[] = [];
          for (let i = 0; i < feed.length; ) {
            packed.start(feed[i++]!);
            let parts = 1;
            while (packed.size < maxBytes && i < feed.length && packed.fits(feed[i]!, maxBytes)) {
              packed.append(feed[i++]!);
              parts++;
            }
            const data = packed.finish();
            messages.push({ data, parts, copy: data.slice() });
          }
          let next = start;
          const all: Op[] = [];
          for (const m of messages) {
            expect(m.data).toEqual(m.copy); // a later message did not write over it
            if (m.parts > 1) expect(m.data.length).toBeLessThanOrEqual(maxBytes);
            const batch = WriteBatch.fromData(m.data);
            expect(batch.sequence).toBe(next);
            next += batch.count;
          }
          for (const run of runs) all.push(...run);
          expect(next).toBe(seq);
          expect(messages.flatMap((m) => opsOf(WriteBatch.fromData(m.data)))).toEqual(
            opsOf(batchOf(all)),
          );
        },
      ),
    );
  });

  it("grows past its first buffer and refuses a batch that does not follow", () => {
    const packed = new PackedBatch();
    const big = dataAt(new WriteBatch().put("k", "v".repeat(100_000)), 7);
    packed.start(big);
    packed.append(dataAt(new WriteBatch().put("j", "w"), 8));
    const batch = WriteBatch.fromData(packed.finish());
    expect([batch.sequence, batch.count, batch.byteSize]).toEqual([
      7,
      2,
      big.length + dataAt(new WriteBatch().put("j", "w"), 8).length - BATCH_HEADER,
    ]);
    expect(packed.fits(dataAt(new WriteBatch().put("x", "y"), 9), 1 << 20)).toBe(true);
    expect(packed.fits(dataAt(new WriteBatch().put("x", "y"), 10), 1 << 20)).toBe(false);
    expect(packed.fits(dataAt(new WriteBatch().put("x", "y"), 9), big.length)).toBe(false);
  });
});

describe("batchSuffix", () => {
  it("keeps the operations after the skipped ones, in their families", () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 12 }), fc.nat(14), (ops, skip) => {
        const batch = WriteBatch.fromData(dataAt(batchOf(ops), 5));
        const suffix = batchSuffix(batch, skip);
        expect(suffix.count).toBe(Math.max(0, ops.length - skip));
        expect(opsOf(suffix)).toEqual(opsOf(batchOf(ops.slice(skip))));
      }),
    );
  });
});
