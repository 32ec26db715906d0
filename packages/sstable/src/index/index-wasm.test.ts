/**
 * index-wasm.ts against its JavaScript twins: the whole-entries rewrite of
 * `normalizeIndexBlock` and `IndexSearch.build`, on index blocks of at least
 * WASM_INDEX_MIN_ENTRIES entries, sound and damaged.
 */
import { bytewiseComparator, MAX_SEQ, putVarint64, toBytes, toHex, ValueKind } from "@shale/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Block } from "../block/block.js";
import { BlockBuilder } from "../block/block-builder.js";
import { buildTable, ikey, openTable } from "../table/table.test-support.js";
import { IndexBuilder, normalizeIndexBlock } from "./index-block.js";
import { IndexSearch } from "./index-search.js";
import {
  WASM_INDEX_MAX_BYTES,
  WASM_INDEX_MIN_ENTRIES,
  wasmIndexLoader,
  wasmLoadsIndex,
} from "./index-wasm.js";

/** An index block as IndexBuilder writes it for `formatVersion`, one entry per user key. */
function indexBlock(
  users: readonly Uint8Array[],
  formatVersion: number,
  spanning: boolean,
  firstOffset: number,
): { contents: Uint8Array; keyIsUserKey: boolean } {
  const sorted = users.slice().sort((a, b) => bytewiseComparator.compare(a, b));
  const b = new IndexBuilder(bytewiseComparator, formatVersion);
  let offset = firstOffset;
  for (let i = 0; i < sorted.length; i++) {
    const last = ikey(sorted[i]!, 5, ValueKind.Value);
    // With `spanning`, every other block's next key has the same user key (internal keys).
    const next =
      i + 1 < sorted.length
        ? ikey(spanning && i % 3 === 0 ? sorted[i]! : sorted[i + 1]!, 4, ValueKind.Value)
        : undefined;
    const size = 100 + ((i * 7919) % 5000);
    b.add(last, next, { offset, size });
    offset += size + 5;
  }
  return b.finish();
}

/** The outcome of `f`: its value, or the error's code and message. */
function outcome<T>(f: () => T): { value: T } | { error: string } {
  try {
    return { value: f() };
  } catch (e) {
    const err = e as { code?: string; message?: string };
    return { error: `${err.code}: ${err.message}` };
  }
}

/** IndexSearch.build's result in comparable form (undefined: no search aid). */
function searchOf(data: Uint8Array, wasm: boolean): unknown {
  const block = Block.keyValue(data, "f", 9);
  const s = IndexSearch.build(data, block.restartsOffset, block.numRestarts, "f", 9, wasm);
  return s === undefined
    ? undefined
    : { prefix: s.prefixLength, records: toHex(new Uint8Array(s.records.buffer)) };
}

const userKeys = (minLength: number, maxLength: number) =>
  fc.uniqueArray(fc.uint8Array({ minLength: 0, maxLength, max: 5 }), {
    selector: (k) => toHex(k),
    minLength,
    maxLength: minLength + 300,
  });

describe("index blocks in WebAssembly", () => {
  it("is available here (Node has WebAssembly), for blocks of enough entries and not too many bytes", () => {
    expect(wasmIndexLoader()).toBeDefined();
    expect(wasmLoadsIndex(10_000, WASM_INDEX_MIN_ENTRIES)).toBe(true);
    expect(wasmLoadsIndex(10_000, WASM_INDEX_MIN_ENTRIES - 1)).toBe(false);
    expect(wasmLoadsIndex(WASM_INDEX_MAX_BYTES, 100_000)).toBe(true);
    expect(wasmLoadsIndex(WASM_INDEX_MAX_BYTES + 1, 100_000)).toBe(false);
  });

  it("rewrites and searches as the JavaScript does (property-based)", () => {
    fc.assert(
      fc.property(
        userKeys(WASM_INDEX_MIN_ENTRIES, 10),
        fc.constantFrom(2, 3, 4, 5),
        fc.boolean(),
        // Block offsets past 2^32 (the records' high word) and multi-byte key lengths.
        fc.constantFrom(0, 2 ** 32 - 100_000, 2 ** 45),
        fc.constantFrom("", "p".repeat(130), "user:"),
        (users, formatVersion, spanning, firstOffset, common) => {
          const withPrefix = users.map((u) => Uint8Array.of(...toBytes(common), ...u));
          const { contents, keyIsUserKey } = indexBlock(
            withPrefix,
            formatVersion,
            spanning,
            firstOffset,
          );
          const encoding = { keyIsUserKey, valueIsDeltaEncoded: formatVersion >= 4 };
          const inWasm = normalizeIndexBlock(contents, encoding, "f", 0);
          const inJs = normalizeIndexBlock(contents, encoding, "f", 0, true, false);
          const general = normalizeIndexBlock(contents, encoding, "f", 0, false, false);
          expect(toHex(inWasm)).toBe(toHex(inJs));
          expect(toHex(inWasm)).toBe(toHex(general));
          expect(searchOf(inWasm, true)).toEqual(searchOf(inWasm, false));
          expect(searchOf(inWasm, true)).toBeDefined();
        },
      ),
      { numRuns: 60 },
    );
  });

  it("gives up, or finds damage, exactly where the JavaScript does (damaged blocks)", () => {
    // Damage near an entry's start (its header: shared, key length, value length), with
    // bytes that make varints long, shared prefixes or short keys, or any byte anywhere.
    const hit = fc.tuple(
      fc.nat(),
      fc.integer({ min: 0, max: 40 }),
      fc.oneof(
        fc.constantFrom(0, 1, 2, 7, 8, 20, 21, 0x7f, 0x80, 0x8f, 0xff),
        fc.integer({ min: 0, max: 255 }),
      ),
    );
    fc.assert(
      fc.property(
        userKeys(WASM_INDEX_MIN_ENTRIES, 6),
        fc.constantFrom(3, 4, 5),
        fc.array(hit, { minLength: 1, maxLength: 4 }),
        (users, formatVersion, damage) => {
          const { contents, keyIsUserKey } = indexBlock(users, formatVersion, false, 0);
          const encoding = { keyIsUserKey, valueIsDeltaEncoded: formatVersion >= 4 };
          // Damage the entries only: a bad restart array is refused before either path runs.
          const damaged = (block: Uint8Array): Uint8Array => {
            const { restartsOffset, numRestarts } = Block.keyValue(block, "f", 0);
            const view = new DataView(block.buffer, block.byteOffset, block.length);
            const out = block.slice();
            for (const [entry, delta, byte] of damage) {
              const at = view.getUint32(restartsOffset + 4 * (entry % numRestarts), true) + delta;
              if (at < restartsOffset) out[at] = byte;
            }
            return out;
          };
          const raw = damaged(contents);
          const inWasm = outcome(() => toHex(normalizeIndexBlock(raw, encoding, "f", 3)));
          const inJs = outcome(() =>
            toHex(normalizeIndexBlock(raw, encoding, "f", 3, true, false)),
          );
          expect(inWasm).toEqual(inJs);
          // And the search aid of a damaged classic block.
          const classic = damaged(normalizeIndexBlock(contents, encoding, "f", 0));
          expect(outcome(() => searchOf(classic, true))).toEqual(
            outcome(() => searchOf(classic, false)),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a block with a restart run of several entries gets no search aid, as in JavaScript", () => {
    // A classic index block written with restart interval 2.
    const b = new BlockBuilder(2);
    const handle = new Uint8Array(20);
    for (let i = 0; i < 2 * WASM_INDEX_MIN_ENTRIES; i++) {
      const n = putVarint64(handle, putVarint64(handle, 0, i * 100), 95);
      b.add(ikey(`k${String(i).padStart(5, "0")}`, 1, ValueKind.Value), handle.subarray(0, n));
    }
    const data = b.finish().slice();
    expect(searchOf(data, true)).toBeUndefined();
    expect(searchOf(data, false)).toBeUndefined();
  });

  it("a table with thousands of data blocks reads every key (index loaded in WebAssembly)", () => {
    const n = 3000;
    const keys = Array.from({ length: n }, (_, i) =>
      ikey(`key${String(i).padStart(6, "0")}`, 1, ValueKind.Value),
    );
    const values = keys.map((_, i) => toBytes(`value-${i}`.repeat(3)));
    // 64-byte blocks: ~1 entry each, so the index has ~n entries.
    const table = buildTable(keys, values, { blockSize: 64 });
    const reader = openTable(table);
    for (let i = 0; i < n; i += 7) {
      const r = reader.get(keys[i]!.subarray(0, keys[i]!.length - 8), MAX_SEQ);
      expect(r.value === undefined ? undefined : new TextDecoder().decode(r.value)).toBe(
        `value-${i}`.repeat(3),
      );
    }
    expect(reader.get(toBytes("key9999999"), MAX_SEQ).value).toBeUndefined();
    const it = reader.newIterator();
    let seen = 0;
    for (it.seekToFirst(); it.valid(); it.next()) seen++;
    it.close();
    expect(seen).toBe(n);
    reader.close();
  });
});
