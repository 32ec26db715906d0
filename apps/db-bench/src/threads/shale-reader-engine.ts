/**
 * The engine a shale reader thread runs workloads on: `openReader(handle)` (shale's
 * worker readers) behind the read half of db-bench's Engine — the same reads as the
 * main-thread engine (engines/shale.ts): `getView` for readrandom, one iterator per scan
 * and per seek.
 */
import { openReader, type Reader } from "shale";
import type { ReaderThreadSpec, ScanResult, SeekResult } from "../engines/engine.js";
import { sameBytes } from "../engines/engine.js";
import type { OpClock } from "../op-clock.js";

type ShaleSpec = Extract<ReaderThreadSpec, { engine: "shale" }>;
type ReaderIterator = ReturnType<Reader["iterator"]>;

export class ShaleReaderEngine {
  readonly name = "shale";
  private constructor(
    private readonly reader: Reader,
    private readonly seekOptions: ShaleSpec["seekOptions"],
  ) {}

  static async open(spec: ShaleSpec): Promise<ShaleReaderEngine> {
    const options: { blockCacheSize?: number; cacheIndexAndFilterBlocks: boolean } = {
      cacheIndexAndFilterBlocks: spec.cacheIndexAndFilterBlocks,
    };
    if (spec.cacheSize >= 0) options.blockCacheSize = spec.cacheSize;
    const reader = await openReader(spec.handle as Parameters<typeof openReader>[0], options);
    return new ShaleReaderEngine(reader, spec.seekOptions);
  }

  unsupported(): undefined {
    return undefined;
  }

  get(key: Uint8Array): number {
    const v = this.reader.getView(key);
    return v === undefined ? -1 : v.length;
  }

  scan(reverse: boolean, limit: number, out: ScanResult, clock: OpClock | undefined): void {
    const it = this.reader.iterator();
    let n = 0;
    let bytes = 0;
    if (reverse) it.seekToLast();
    else it.seekToFirst();
    while (n < limit && it.valid()) {
      bytes += it.key().length + it.value().length;
      if (reverse) it.prev();
      else it.next();
      if (clock !== undefined) clock.finished();
      n++;
    }
    it.close();
    out.entries = n;
    out.bytes = bytes;
  }

  seekOnce(target: Uint8Array, nexts: number, out: SeekResult): void {
    const it: ReaderIterator = this.reader.iterator(this.seekOptions);
    it.seek(target);
    out.exact = it.valid() && sameBytes(it.key(), target);
    let entries = 0;
    let bytes = 0;
    for (let j = 0; j < nexts && it.valid(); j++) {
      bytes += it.key().length + it.value().length;
      it.next();
      entries++;
    }
    it.close();
    out.entries = entries;
    out.bytes = bytes;
  }

  close(): Promise<void> {
    return this.reader.close();
  }
}
