/**
 * Transaction workloads.
 *
 * - randomtransaction (db_bench's, with `--transaction_sets`): `readwrites` transactions,
 *   each reading `transaction_sets` random keys for update and writing each back as its
 *   8-byte counter + 1, then committing. Optimistic by default (or with
 *   `--optimistic_transaction_db`), pessimistic with `--transaction_db`. Reported: the
 *   transactions per second, and how many were re-run after a conflict (none with one
 *   client, as in db_bench with --threads=1).
 * - filltransaction: fillrandom with every put in a transaction of its own: against
 *   fillrandom, the cost of a transaction around one put.
 */
import {
  FastRandom,
  type KeyGenerator,
  KeyNumbers,
  keyGenerator,
  Stream,
  ValueGenerator,
} from "../generators.js";
import type { BenchResult } from "../report.js";
import { type BenchContext, notAvailable, opClock, result } from "./context.js";
import { readWriteCount } from "./writes.js";

export async function randomTransaction(ctx: BenchContext): Promise<BenchResult> {
  const { flags, engine, progress } = ctx;
  const name = "randomtransaction";
  if (typeof engine.randomTransaction !== "function")
    return notAvailable(ctx, name, `${engine.name} has no transactions in db-bench`);
  const ops = readWriteCount(ctx);
  const sets = flags.transactionSets;
  const generators: KeyGenerator[] = [];
  for (let i = 0; i < sets; i++) generators.push(keyGenerator(flags));
  const keys: Uint8Array[] = new Array(sets);
  const rnd = new FastRandom(flags.seed + Stream.transaction);
  let retries = 0;
  progress.start(`${engine.name} ${name}`);
  const clock = opClock(ctx, ops);
  const t0 = performance.now();
  for (let i = 0; i < ops; i++) {
    for (let s = 0; s < sets; s++) keys[s] = generators[s]!.key(rnd.uniform(flags.num));
    const r = engine.randomTransaction(keys);
    retries += typeof r === "number" ? r : await r;
    if (clock !== undefined) clock.finished();
    if ((i & 1023) === 0) progress.tick(i, ops);
  }
  const seconds = (performance.now() - t0) / 1000;
  progress.done();
  const kind = transactionKind(ctx);
  return result(
    ctx,
    name,
    ops,
    seconds,
    ops * sets * (flags.keySize + 8),
    `(${kind}, ${sets} reads + ${sets} writes each, ${retries} re-runs)`,
    clock,
  );
}

export async function fillTransaction(ctx: BenchContext): Promise<BenchResult> {
  const { flags, engine, progress } = ctx;
  const name = "filltransaction";
  if (typeof engine.transactionPut !== "function")
    return notAvailable(ctx, name, `${engine.name} has no transactions in db-bench`);
  const ops = flags.num;
  const keys = keyGenerator(flags);
  const values = new ValueGenerator(flags.compressionRatio, flags.seed);
  // fillrandom's key stream, so the two write the same keys
  const numbers = new KeyNumbers(false, flags.num, new FastRandom(flags.seed + Stream.fill));
  progress.start(`${engine.name} ${name}`);
  const clock = opClock(ctx, ops);
  const t0 = performance.now();
  for (let i = 0; i < ops; i++) {
    const p = engine.transactionPut(keys.key(numbers.next()), values.generate(flags.valueSize));
    if (p !== undefined) await p;
    if (clock !== undefined) clock.finished();
    if ((i & 1023) === 0) progress.tick(i, ops);
  }
  const seconds = (performance.now() - t0) / 1000;
  progress.done();
  const kind = transactionKind(ctx);
  return result(
    ctx,
    name,
    ops,
    seconds,
    ops * (flags.keySize + flags.valueSize),
    `(${kind})`,
    clock,
  );
}

/** shale's kind of transaction, or the engine's own for the peers. */
function transactionKind(ctx: BenchContext): string {
  if (ctx.engine.name !== "shale") return `${ctx.engine.name}'s transactions`;
  return ctx.flags.transactionDb ? "pessimistic" : "optimistic";
}
