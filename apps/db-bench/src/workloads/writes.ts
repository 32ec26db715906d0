/**
 * Write workloads: fills (in order or at random, single writes or batches, with db_bench's
 * optional range tombstones), deletes and merges.
 *
 * Range tombstones follow db_bench's DoWrite: after every `writes_per_range_tombstone`
 * writes, while fewer than `max_num_range_tombstones` were written, a deletion of
 * `range_tombstone_width` keys starting at a random key number — one deleteRange, or with
 * `expand_range_tombstones` a point delete of every key in it. In batch mode it joins the
 * batch; otherwise it is its own write, timed with the write before it.
 */
import { BatchOps, DELETE, DELETE_RANGE, PUT } from "../engines/engine.js";
import { mergeKeyCount, readCount } from "../flags.js";
import { FastRandom, KeyGenerator, UINT64_ONE, ValueGenerator } from "../generators.js";
import type { BenchResult } from "../report.js";
import { type BenchContext, latencyArray, result } from "./context.js";

export type Order = "seq" | "random";

/** Tracks db_bench's range-tombstone schedule for one fill. */
class Tombstones {
  count = 0;
  private readonly every: number;
  private readonly max: number;
  private readonly width: number;
  private readonly expand: boolean;
  private readonly rnd: FastRandom;
  private readonly start: KeyGenerator;
  private readonly end: KeyGenerator;
  private readonly deletes = new BatchOps();

  constructor(private readonly ctx: BenchContext) {
    const f = ctx.flags;
    this.every = f.writesPerRangeTombstone;
    this.max = f.maxNumRangeTombstones;
    this.width = f.rangeTombstoneWidth;
    this.expand = f.expandRangeTombstones;
    this.rnd = new FastRandom(f.seed + 7);
    this.start = new KeyGenerator(f.keySize);
    this.end = new KeyGenerator(f.keySize);
  }

  get enabled(): boolean {
    return this.every > 0;
  }

  /** Whether a tombstone follows write number `written` (1-based). */
  due(written: number): boolean {
    return (
      this.every > 0 && written % this.every === 0 && Math.floor(written / this.every) <= this.max
    );
  }

  /** Adds the tombstone (or its point deletes) to `batch`, with buffers of its own. */
  addTo(batch: BatchOps): void {
    const begin = this.rnd.uniform(this.ctx.flags.num);
    this.count++;
    if (this.expand) {
      for (let k = 0; k < this.width; k++)
        batch.add(DELETE, Buffer.from(this.start.key(begin + k)), EMPTY);
    } else {
      batch.add(
        DELETE_RANGE,
        Buffer.from(this.start.key(begin)),
        Buffer.from(this.end.key(begin + this.width)),
      );
    }
  }

  /** Writes the tombstone on its own. */
  write(): void | Promise<void> {
    const begin = this.rnd.uniform(this.ctx.flags.num);
    this.count++;
    const engine = this.ctx.engine;
    if (!this.expand)
      return engine.deleteRange(this.start.key(begin), this.end.key(begin + this.width));
    const d = this.deletes;
    d.clear();
    for (let k = 0; k < this.width; k++)
      d.add(DELETE, Buffer.from(this.start.key(begin + k)), EMPTY);
    return engine.write(d);
  }

  message(): string {
    if (this.count === 0) return "";
    return this.expand
      ? `(${this.count} range tombstones as ${this.count * this.width} point deletes)`
      : `(${this.count} range tombstones)`;
  }
}

const EMPTY = new Uint8Array(0);

/** Distinct reusable key buffers for one batch. */
function keyPool(n: number, keySize: number): KeyGenerator[] {
  const pool: KeyGenerator[] = [];
  for (let i = 0; i < n; i++) pool.push(new KeyGenerator(keySize));
  return pool;
}

export async function fill(
  ctx: BenchContext,
  name: string,
  order: Order,
  ops: number,
  valueSize: number,
): Promise<BenchResult> {
  const { flags, engine, progress } = ctx;
  const keys = new KeyGenerator(flags.keySize);
  const values = new ValueGenerator(flags.compressionRatio, flags.seed);
  const rnd = new FastRandom(flags.seed + 1);
  const batchSize = flags.batchSize;
  const latencies = latencyArray(ctx, Math.ceil(ops / batchSize));
  const tombstones = new Tombstones(ctx);
  const pool = batchSize > 1 ? keyPool(batchSize, flags.keySize) : [];
  const batch = new BatchOps();
  const num = flags.num;
  const seq = order === "seq";
  progress.start(`${engine.name} ${name}`);
  const t0 = performance.now();
  for (let i = 0, op = 0; i < ops; i += batchSize, op++) {
    const s = latencies !== undefined ? performance.now() : 0;
    if (batchSize === 1) {
      const p = engine.put(keys.key(seq ? i : rnd.uniform(num)), values.generate(valueSize));
      if (p !== undefined) await p;
      if (tombstones.enabled && tombstones.due(i + 1)) {
        const q = tombstones.write();
        if (q !== undefined) await q;
      }
    } else {
      batch.clear();
      const end = Math.min(ops, i + batchSize);
      for (let j = i; j < end; j++) {
        batch.add(PUT, pool[j - i]!.key(seq ? j : rnd.uniform(num)), values.generate(valueSize));
        if (tombstones.enabled && tombstones.due(j + 1)) tombstones.addTo(batch);
      }
      const p = engine.write(batch);
      if (p !== undefined) await p;
    }
    if (latencies !== undefined) latencies[op] = (performance.now() - s) * 1000;
    if ((op & 1023) === 0) progress.tick(i, ops);
  }
  const seconds = (performance.now() - t0) / 1000;
  progress.done();
  const message = [batchSize > 1 ? `(batches of ${batchSize})` : "", tombstones.message()]
    .filter((m) => m.length > 0)
    .join(" ");
  return result(ctx, name, ops, seconds, ops * (flags.keySize + valueSize), message, latencies);
}

export async function deleteKeys(
  ctx: BenchContext,
  name: string,
  order: Order,
): Promise<BenchResult> {
  const { flags, engine, progress } = ctx;
  const keys = new KeyGenerator(flags.keySize);
  const rnd = new FastRandom(flags.seed + 3);
  const ops = flags.num;
  const batchSize = flags.batchSize;
  const latencies = latencyArray(ctx, Math.ceil(ops / batchSize));
  const pool = batchSize > 1 ? keyPool(batchSize, flags.keySize) : [];
  const batch = new BatchOps();
  const seq = order === "seq";
  progress.start(`${engine.name} ${name}`);
  const t0 = performance.now();
  for (let i = 0, op = 0; i < ops; i += batchSize, op++) {
    const s = latencies !== undefined ? performance.now() : 0;
    if (batchSize === 1) {
      const p = engine.delete(keys.key(seq ? i : rnd.uniform(ops)));
      if (p !== undefined) await p;
    } else {
      batch.clear();
      const end = Math.min(ops, i + batchSize);
      for (let j = i; j < end; j++)
        batch.add(DELETE, pool[j - i]!.key(seq ? j : rnd.uniform(ops)), EMPTY);
      const p = engine.write(batch);
      if (p !== undefined) await p;
    }
    if (latencies !== undefined) latencies[op] = (performance.now() - s) * 1000;
    if ((op & 1023) === 0) progress.tick(i, ops);
  }
  const seconds = (performance.now() - t0) / 1000;
  progress.done();
  const message = batchSize > 1 ? `(batches of ${batchSize})` : "";
  return result(ctx, name, ops, seconds, ops * flags.keySize, message, latencies);
}

/** db_bench's readwrites_: num, or the larger of num and --reads when reads is given. */
export function readWriteCount(ctx: BenchContext): number {
  const f = ctx.flags;
  return f.reads < 0 ? f.num : Math.max(f.num, readCount(f));
}

/** The operand a merge writes: 8-byte 1 for uint64add (sums count merges), else a value. */
export function mergeOperand(ctx: BenchContext, values: ValueGenerator): Uint8Array {
  return ctx.flags.mergeOperator === "uint64add"
    ? UINT64_ONE
    : values.generate(ctx.flags.valueSize);
}

export async function mergeRandom(ctx: BenchContext): Promise<BenchResult> {
  const { flags, engine, progress } = ctx;
  const keys = new KeyGenerator(flags.keySize);
  const values = new ValueGenerator(flags.compressionRatio, flags.seed);
  const rnd = new FastRandom(flags.seed + 4);
  const ops = readWriteCount(ctx);
  const mergeKeys = mergeKeyCount(flags);
  const latencies = latencyArray(ctx, ops);
  let bytes = 0;
  progress.start(`${engine.name} mergerandom`);
  const t0 = performance.now();
  for (let i = 0; i < ops; i++) {
    const s = latencies !== undefined ? performance.now() : 0;
    const operand = mergeOperand(ctx, values);
    const p = engine.merge(keys.key(rnd.uniform(mergeKeys)), operand);
    if (p !== undefined) await p;
    bytes += flags.keySize + operand.length;
    if (latencies !== undefined) latencies[i] = (performance.now() - s) * 1000;
    if ((i & 1023) === 0) progress.tick(i, ops);
  }
  const seconds = (performance.now() - t0) / 1000;
  progress.done();
  return result(ctx, "mergerandom", ops, seconds, bytes, `( updates:${ops})`, latencies);
}
