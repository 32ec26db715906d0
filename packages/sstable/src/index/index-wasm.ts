/**
 * Loading a large index block in WebAssembly (index-rewrite.wat, compiled once per thread
 * on first use): the whole-entries rewrite of `normalizeIndexBlock` and the record pass of
 * `IndexSearch.build`. Both run once per table open over every index entry (~25k for a
 * 58 MB table). As JavaScript that is cold code in most processes, which open few tables:
 * on the first open of such a table the two took ~58 ms of its ~68 ms (against ~11 ms once
 * the JIT has compiled them). With the module the same steps take 15-23 ms on a first open
 * (its compile, the copies and the restart-array checks around it included), ~5 later.
 *
 * Each method gives exactly its JavaScript twin's answer or says it cannot (`undefined`),
 * so the caller runs the JavaScript, which also reports damage: the twins stay the
 * reference, and the only path for small blocks and where WebAssembly is unavailable.
 *
 * Memory: the block copied in at 0, then the outputs (see the .wat); grown (never shrunk)
 * to the largest block seen. Single-threaded: one instance per thread, used synchronously.
 */
import { TRAILER_SIZE } from "@shale/base";
import { lazyWasm, memoryFor, type WasmMemory } from "../compression/wasm-module.js";
import { INDEX_REWRITE_WASM } from "./index-rewrite-wasm.js";

/** Index blocks with at least this many entries are loaded here (fewer: the JavaScript). */
export const WASM_INDEX_MIN_ENTRIES = 256;
/**
 * Index blocks over this many bytes are left to the JavaScript, so the module's memory
 * (kept by the thread once grown, ~3x the block) stays under ~32 MiB. 8 MiB is the index
 * of a ~600 MB table with 4 KiB blocks.
 */
export const WASM_INDEX_MAX_BYTES = 8 * 1024 * 1024;

/** True if `wasmIndexLoader` should load an index block of `size` bytes and `entries` entries. */
export function wasmLoadsIndex(size: number, entries: number): boolean {
  return entries >= WASM_INDEX_MIN_ENTRIES && size <= WASM_INDEX_MAX_BYTES;
}

interface Exports {
  memory: WasmMemory;
  rewrite(
    limit: number,
    numRestarts: number,
    trailer: number,
    delta: number,
    out: number,
    rs: number,
  ): number;
  records(limit: number, numRestarts: number, ks: number, ul: number, rec: number): number;
  words(n: number, prefix: number, ks: number, ul: number, rec: number): void;
}

/** What `IndexSearch.build` derives from a block: its records and common prefix length. */
export interface IndexRecords {
  records: Uint32Array;
  prefixLength: number;
  /** Where entry 0's key starts in the block. */
  prefixOffset: number;
}

const align8 = (n: number): number => (n + 7) & ~7;

export class WasmIndexLoader {
  private readonly exports: Exports;
  private bytes: Uint8Array;

  constructor(exports: Exports) {
    this.exports = exports;
    this.bytes = new Uint8Array(exports.memory.buffer);
  }

  /** Room for `need` bytes, the block's first `n` bytes copied in at 0. */
  private load(data: Uint8Array, n: number, need: number): Uint8Array {
    const bytes = memoryFor(this.exports.memory, this.bytes, need);
    this.bytes = bytes;
    bytes.set(n === data.length ? data : data.subarray(0, n), 0);
    return bytes;
  }

  /**
   * `rewriteWholeEntries` (index-block.ts): the classic block of the entries
   * `data[0, limit)`, in memory of its own (`alloc(n)`), an empty array for a block with no
   * entry (the caller substitutes the classic empty block), or undefined where the
   * whole-entries path does not apply.
   */
  rewrite(
    data: Uint8Array,
    limit: number,
    numRestarts: number,
    keyIsUserKey: boolean,
    delta: boolean,
    alloc: (n: number) => Uint8Array,
  ): Uint8Array | undefined {
    const trailer = keyIsUserKey ? TRAILER_SIZE : 0;
    // As rewriteWholeEntries: each entry grows by at most the trailer + 3; restarts 4 each.
    const bound = limit + numRestarts * (trailer + 3 + 4) + 4;
    const out = align8(limit);
    const rs = align8(out + bound);
    const bytes = this.load(data, limit, rs + 4 * numRestarts);
    const n = this.exports.rewrite(limit, numRestarts, trailer, delta ? 1 : 0, out, rs);
    if (n < 0) return undefined;
    const result = alloc(n);
    result.set(bytes.subarray(out, out + n), 0);
    return result;
  }

  /**
   * `IndexSearch.build`'s records for the classic index block `data` (restart array at
   * `restartsOffset`, validated), or "runs" where it returns undefined (a restart run of
   * more than one entry), or undefined for a malformed entry (the JavaScript reports it).
   */
  records(
    data: Uint8Array,
    restartsOffset: number,
    numRestarts: number,
  ): IndexRecords | "runs" | undefined {
    const size = restartsOffset + 4 * numRestarts;
    const ks = align8(size);
    const ul = ks + 4 * numRestarts;
    const rec = align8(ul + 4 * numRestarts);
    const bytes = this.load(data, size, rec + 16 * numRestarts);
    const ok = this.exports.records(restartsOffset, numRestarts, ks, ul, rec);
    if (ok < 0) return undefined;
    if (ok === 0) return "runs";
    const starts = new Int32Array(bytes.buffer, ks, numRestarts);
    const lengths = new Int32Array(bytes.buffer, ul, numRestarts);
    const first = starts[0]!;
    const last = starts[numRestarts - 1]!;
    const m = Math.min(lengths[0]!, lengths[numRestarts - 1]!);
    let prefix = 0;
    while (prefix < m && bytes[first + prefix] === bytes[last + prefix]) prefix++;
    this.exports.words(numRestarts, prefix, ks, ul, rec);
    const records = new Uint32Array(bytes.buffer, rec, 4 * numRestarts).slice();
    return { records, prefixLength: prefix, prefixOffset: first };
  }
}

/** This thread's loader, or undefined without WebAssembly. */
export const wasmIndexLoader: () => WasmIndexLoader | undefined = lazyWasm(
  INDEX_REWRITE_WASM,
  (exports) => new WasmIndexLoader(exports as Exports),
);
