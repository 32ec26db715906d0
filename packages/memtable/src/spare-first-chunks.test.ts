/**
 * Spare first chunks (spare-first-chunks.ts): a released memtable's first buffer is taken by
 * the next one, whose contents stay its own (nodes zeroed, entries rewritten); an exported
 * memtable's buffer is never kept.
 */
import { LookupResult, LookupState, MAX_SEQ, ValueKind } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Arena, DEFAULT_CHUNK_SIZE, FIRST_CHUNK_SIZE } from "./arena.js";
import { MemTable } from "./memtable.js";
import {
  MAX_SPARE_FIRST_CHUNKS,
  spareFirstChunkCount,
  takeSpareFirstChunk,
} from "./spare-first-chunks.js";

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Empties the list (memtables with default options start with 4 KiB of entries and 4 KiB of nodes). */
function drain(): void {
  while (takeSpareFirstChunk(4096, 4096) !== undefined) {}
  expect(spareFirstChunkCount()).toBe(0);
}

describe("spare first chunks", () => {
  it("keeps a released memtable's first buffer and gives it to the next one", () => {
    drain();
    const before = spareFirstChunkCount();
    const a = new MemTable();
    a.add(1, ValueKind.Value, bytes("k"), bytes("v"));
    a.unref();
    expect(spareFirstChunkCount()).toBe(Math.min(before + 1, MAX_SPARE_FIRST_CHUNKS));
    const b = new MemTable();
    expect(spareFirstChunkCount()).toBe(before);
    const r = new LookupResult();
    b.get(bytes("k"), MAX_SEQ, r);
    expect(r.state).toBe(LookupState.NotFound);
    b.unref();
  });

  it("keeps no buffer of an exported memtable", () => {
    drain();
    const before = spareFirstChunkCount();
    const a = new MemTable();
    a.add(1, ValueKind.Value, bytes("k"), bytes("v"));
    a.seal();
    a.exportShared();
    a.unref();
    expect(spareFirstChunkCount()).toBe(before);
  });

  it("memtables made and released in turn hold exactly what was added to each", () => {
    const entry = fc.tuple(
      fc.uint8Array({ minLength: 1, maxLength: 20 }),
      fc.uint8Array({ maxLength: 120 }),
    );
    fc.assert(
      fc.property(
        // Up to 300 entries: several leaves in the kept buffer's node part (each zeroed as
        // it is allocated), and entries past its entry part.
        fc.array(fc.array(entry, { maxLength: 300 }), { minLength: 1, maxLength: 8 }),
        (tables) => {
          for (const entries of tables) {
            const mem = new MemTable();
            const model = new Map<string, Uint8Array>();
            entries.forEach(([k, v], i) => {
              mem.add(i + 1, ValueKind.Value, k, v);
              model.set(Buffer.from(k).toString("hex"), v);
            });
            const seen = new Map<string, Uint8Array>();
            const it = mem.newIterator();
            for (it.seekToFirst(); it.valid(); it.next()) {
              const key = it.key();
              const user = Buffer.from(key.subarray(0, key.length - 8)).toString("hex");
              if (!seen.has(user)) seen.set(user, Uint8Array.from(it.value()));
            }
            it.close();
            expect(seen).toEqual(model);
            mem.unref();
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("a kept first chunk in the next arena", () => {
  it("comes with its two views, and each node allocated in it is zeroed, not the rest", () => {
    drain();
    const a = new Arena(DEFAULT_CHUNK_SIZE, FIRST_CHUNK_SIZE);
    a.allocateNode(100, 0);
    a.allocateEntry(10);
    const entries = a.entryChunks[0]!;
    const nodes = a.nodeChunks[0]!;
    nodes.fill(-1); // words a next arena must not see in the nodes it allocates
    a.release();
    expect(spareFirstChunkCount()).toBe(1);
    const b = new Arena(DEFAULT_CHUNK_SIZE, FIRST_CHUNK_SIZE);
    const first = b.allocateNode(100, 0);
    const second = b.allocateNode(32, 0);
    b.allocateEntry(10);
    // The same view objects: nothing made but the arena itself.
    expect(b.nodeChunks[0]).toBe(nodes);
    expect(b.entryChunks[0]).toBe(entries);
    expect(spareFirstChunkCount()).toBe(0);
    expect([first, second]).toEqual([0, 100]);
    expect(nodes.subarray(0, 132).every((w) => w === 0)).toBe(true);
    // Past what was allocated: the old words (or, with invariants on, poison), untouched.
    expect(nodes[132]).not.toBe(0);
    b.release();
  });

  it("after exportShared, a node allocated in it is zeroed in the shared copy", () => {
    drain();
    const a = new Arena(DEFAULT_CHUNK_SIZE, FIRST_CHUNK_SIZE);
    a.allocateNode(100, 0);
    a.nodeChunks[0]!.fill(-1);
    a.release();
    const b = new Arena(DEFAULT_CHUNK_SIZE, FIRST_CHUNK_SIZE);
    b.allocateNode(100, 0);
    // Shared while still written to (a reader thread's view of the active memtable): the
    // node chunk is now a SharedArrayBuffer copy, holding the old arena's words past 100.
    b.exportShared();
    const shared = b.nodeChunks[0]!;
    expect(shared.buffer).toBeInstanceOf(SharedArrayBuffer);
    const next = b.allocateNode(32, 0);
    expect(next).toBe(100);
    expect(shared.subarray(100, 132).every((w) => w === 0)).toBe(true);
    b.release();
  });
});
