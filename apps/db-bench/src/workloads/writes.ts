/**
 * Write workloads: fills (in order or at random, single writes or batches, with db_bench's
 * optional range tombstones), deletes and merges.
 *
 * Range tombstones follow db_bench's DoWrite: once more than `writes_before_delete_range`
 * puts were written, after every `writes_per_range_tombstone` further puts (while at most
 * `max_num_range_tombstones` were written), a deletion of `range_tombstone_width` keys
 * starting at a key number drawn from the fill's own key generator (the next key number of
 * a fillseq, a uniform draw of a random fill) — one deleteRange, or with
 * `expand_range_tombstones` a point delete of every key in it. In batch mode it joins the
 * batch; otherwise it is its own write, timed with the put before it.
 */
import { BatchOps, DELETE, DELETE_RANGE, PUT } from "../engines/engine.js";
import { mergeKeyCount, readCount } from "../flags.js";
import {
  FastRandom,
  type KeyGenerator,
  KeyNumbers,
  keyGenerator,
  Stream,
  UINT64_ONE,
  ValueGenerator,
} from "../generators.js";
import type { BenchResult } from "../report.js";
import { type BenchContext, opClock, result } from "./context.js";

export type Order = "seq" | "random";

/** Tracks db_bench's range-tombstone schedule for one fill. */
class Tombstones {
  count = 0;
  private readonly before: number;
  private readonly every: number;
  private readonly max: number;
  private readonly width: number;
  private readonly expand: boolean;
  private readonly start: KeyGenerator;
  private readonly end: KeyGenerator;
  private readonly deletes = new BatchOps();

  /** `numbers`: the fill's key generator, which also draws each deletion's start. */
  constructor(
    private readonly ctx: BenchContext,
    private readonly numbers: KeyNumbers,
  ) {
    const f = ctx.flags;
    this.before = f.writesBeforeDeleteRange;
    this.every = f.writesPerRangeTombstone;
    this.max = f.maxNumRangeTombstones;
    this.width = f.rangeTombstoneWidth;
    this.expand = f.expandRangeTombstones;
    this.start = keyGenerator(f);
    this.end = keyGenerator(f);
  }

  get enabled(): boolean {
    return this.every > 0;
  }

  /** Whether a tombstone follows put number `written` (1-based). */
  due(written: number): boolean {
    const w = written - this.before;
    return w > 0 && w % this.every === 0 && w / this.every <= this.max;
  }

  /** Adds the tombstone (or its point deletes) to `batch`, with buffers of its own. */
  addTo(batch: BatchOps): void {
    const begin = this.numbers.next();
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
    const begin = this.numbers.next();
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
function keyPool(n: number, flags: BenchContext["flags"]): KeyGenerator[] {
  const pool: KeyGenerator[] = [];
  for (let i = 0; i < n; i++) pool.push(keyGenerator(flags));
  return pool;
}

/**
 * Puts `ops` values of `valueSize` bytes (with the range-tombstone flags' deletions), keys
 * drawn from `stream` (see `Stream`).
 */
export function fill(
  ctx: BenchContext,
  name: string,
  order: Order,
  ops: number,
  valueSize: number,
  stream: number = Stream.fill,
): Promise<BenchResult> {
  return writeKeys(ctx, name, order, ops, valueSize, false, stream);
}

/** Deletes `num` keys. */
export function deleteKeys(ctx: BenchContext, name: string, order: Order): Promise<BenchResult> {
  return writeKeys(ctx, name, order, ctx.flags.num, 0, true, Stream.delete);
}

/** The fills' and deletes' loop: single writes, or batches of --batch_size. */
async function writeKeys(
  ctx: BenchContext,
  name: string,
  order: Order,
  ops: number,
  valueSize: number,
  deletes: boolean,
  stream: number,
): Promise<BenchResult> {
  const { flags, engine, progress } = ctx;
  const keys = keyGenerator(flags);
  const values = deletes ? undefined : new ValueGenerator(flags.compressionRatio, flags.seed);
  const rnd = new FastRandom(flags.seed + stream);
  const numbers = new KeyNumbers(order === "seq", flags.num, rnd);
  const kind = deletes ? DELETE : PUT;
  const batchSize = flags.batchSize;
  const tombstones = new Tombstones(ctx, numbers);
  const ranges = !deletes && tombstones.enabled; // db_bench's DoDelete writes none
  const pool = batchSize > 1 ? keyPool(batchSize, flags) : [];
  const batch = new BatchOps();
  progress.start(`${engine.name} ${name}`);
  const clock = opClock(ctx, Math.ceil(ops / batchSize));
  const t0 = performance.now();
  for (let i = 0, op = 0; i < ops; i += batchSize, op++) {
    if (batchSize === 1) {
      const key = keys.key(numbers.next());
      const p = deletes ? engine.delete(key) : engine.put(key, values!.generate(valueSize));
      if (p !== undefined) await p;
      if (ranges && tombstones.due(i + 1)) {
        const q = tombstones.write();
        if (q !== undefined) await q;
      }
    } else {
      batch.clear();
      const end = Math.min(ops, i + batchSize);
      for (let j = i; j < end; j++) {
        const value = deletes ? EMPTY : values!.generate(valueSize);
        batch.add(kind, pool[j - i]!.key(numbers.next()), value);
        if (ranges && tombstones.due(j + 1)) tombstones.addTo(batch);
      }
      const p = engine.write(batch);
      if (p !== undefined) await p;
    }
    if (clock !== undefined) clock.finished();
    if ((op & 1023) === 0) progress.tick(i, ops);
  }
  const seconds = (performance.now() - t0) / 1000;
  progress.done();
  const message = [batchSize > 1 ? `(batches of ${batchSize})` : "", tombstones.message()]
    .filter((m) => m.length > 0)
    .join(" ");
  return result(ctx, name, ops, seconds, ops * (flags.keySize + valueSize), message, clock);
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

/**
 * db_bench's MergeRandom (`random`): `readwrites` merges to keys drawn uniformly from
 * [0, merge_keys). With `seq` (db-bench's mergeseq, no db_bench counterpart): `num` merges
 * to keys 0, 1, 2, ... modulo merge_keys — with merge_keys = num, one operand per key.
 */
export async function merges(ctx: BenchContext, seq: boolean): Promise<BenchResult> {
  const { flags, engine, progress } = ctx;
  const name = seq ? "mergeseq" : "mergerandom";
  const keys = keyGenerator(flags);
  const values = new ValueGenerator(flags.compressionRatio, flags.seed);
  const rnd = new FastRandom(flags.seed + Stream.merge);
  const ops = seq ? flags.num : readWriteCount(ctx);
  const mergeKeys = mergeKeyCount(flags);
  let bytes = 0;
  progress.start(`${engine.name} ${name}`);
  const clock = opClock(ctx, ops);
  const t0 = performance.now();
  for (let i = 0; i < ops; i++) {
    const operand = mergeOperand(ctx, values);
    const p = engine.merge(keys.key(seq ? i % mergeKeys : rnd.uniform(mergeKeys)), operand);
    if (p !== undefined) await p;
    bytes += flags.keySize + operand.length;
    if (clock !== undefined) clock.finished();
    if ((i & 1023) === 0) progress.tick(i, ops);
  }
  const seconds = (performance.now() - t0) / 1000;
  progress.done();
  return result(ctx, name, ops, seconds, bytes, `( updates:${ops})`, clock);
}
