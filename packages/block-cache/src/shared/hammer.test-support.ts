/**
 * The job of one thread of the cross-thread test (cross-thread.test.ts): inserts, looks up
 * and erases blocks of known contents in a SharedBlockCache attached from `buffers`, and on
 * every hit copies the block out and checks it, counting what it saw.
 */
import type { SharedBlockCacheBuffers } from "./layout.js";
import { SharedBlockCache } from "./shared-block-cache.js";

export interface HammerReport {
  hits: number;
  /** Hits whose copy was checked against the block (the slot still current after the copy). */
  checked: number;
  /** Hits whose slot was retired while the copy was made (the copy was dropped). */
  retired: number;
  /** Checked copies that differ from the block: must be 0. */
  torn: number;
  inserts: number;
}

/** Byte i of block (file, offset): a function of the three, so any thread can check it. */
export function blockByte(file: number, offset: number, i: number): number {
  return (Math.imul(file * 31 + offset + i, 0x9e3779b1) >>> 24) & 0xff;
}

export function blockLength(file: number, offset: number): number {
  return 200 + ((file * 977 + offset * 131) % 3800);
}

export function hammer(buffers: SharedBlockCacheBuffers, seed: number, ops: number): HammerReport {
  const cache = SharedBlockCache.attach(buffers);
  const report: HammerReport = { hits: 0, checked: 0, retired: 0, torn: 0, inserts: 0 };
  const copy = new Uint8Array(cache.maxBlockSize);
  const block = new Uint8Array(cache.maxBlockSize);
  let x = seed >>> 0 || 1;
  for (let n = 0; n < ops; n++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    const file = 1 + (x % 4);
    const offset = ((x >>> 8) % 64) * 4096;
    const what = (x >>> 20) % 16;
    const length = blockLength(file, offset);
    if (what === 0) {
      cache.erase(file, offset);
      continue;
    }
    const slot = cache.lookup(file, offset);
    if (slot < 0) {
      for (let i = 0; i < length; i++) block[i] = blockByte(file, offset, i);
      if (cache.insert(file, offset, block, 0, length) >= 0) report.inserts++;
      continue;
    }
    report.hits++;
    const gen = cache.lookupGeneration;
    const start = cache.lookupStart;
    const got = cache.lookupLength;
    copy.set(cache.data.subarray(start, start + got));
    if (!cache.isCurrent(slot, gen)) {
      report.retired++;
      continue;
    }
    report.checked++;
    let ok = got === length;
    for (let i = 0; ok && i < length; i++) ok = copy[i] === blockByte(file, offset, i);
    if (!ok) report.torn++;
  }
  return report;
}
