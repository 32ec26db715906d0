/**
 * The metamorphic test: one operation list (generate.ts) run on databases opened with
 * several option sets (option-space.ts), every result compared with the model's (model.ts)
 * — and so with every other run's. On a mismatch: the seed, the operation's index, the two
 * option sets (the failing one and the reference), both results, and a minimised
 * reproduction (`shrink`) that `formatReproduction` writes as a testdata file.
 *
 * Shrinking (delta debugging): drop chunks of the list, halving the chunk size down to one
 * operation, keeping each cut that leaves a valid list (tracker.ts's `checkOps`) that still
 * fails on the failing option set; then the same over the writes inside batches.
 */
import { Model } from "./model.js";
import { formatOp, type Op, parseOp } from "./ops.js";
import type { OptionSet } from "./option-space.js";
import { Runner } from "./runner.js";
import { checkOps } from "./tracker.js";

export interface Mismatch {
  /** The index of the operation whose result differs. */
  index: number;
  op: Op;
  got: string;
  want: string;
}

/** The model's result of every operation of `ops`. */
export function expectedResults(ops: readonly Op[]): string[] {
  const model = new Model();
  return ops.map((op) => model.exec(op));
}

/** Runs `ops` on `set`; the first mismatch with `want` (the model's results), if any. */
export async function runOne(
  ops: readonly Op[],
  set: OptionSet,
  want: readonly string[] = expectedResults(ops),
): Promise<Mismatch | undefined> {
  const runner = new Runner(set);
  try {
    try {
      await runner.open();
    } catch (e) {
      return { index: -1, op: { t: "reopen" }, got: `open failed: ${String(e)}`, want: "ok" };
    }
    for (let i = 0; i < ops.length; i++) {
      const got = await runner.exec(ops[i]!);
      if (got !== want[i]) return { index: i, op: ops[i]!, got, want: want[i]! };
    }
    return undefined;
  } finally {
    await runner.dispose();
  }
}

export interface Failure {
  set: OptionSet;
  setIndex: number;
  mismatch: Mismatch;
}

/** Runs `ops` on every set; the first failing one, if any. */
export async function runAll(
  ops: readonly Op[],
  sets: readonly OptionSet[],
): Promise<Failure | undefined> {
  const want = expectedResults(ops);
  for (const [setIndex, set] of sets.entries()) {
    const mismatch = await runOne(ops, set, want);
    if (mismatch !== undefined) return { set, setIndex, mismatch };
  }
  return undefined;
}

/**
 * A shorter list that still fails on `set` (the input if nothing can go), within
 * `budgetMs` of shrinking.
 */
export async function shrink(ops: readonly Op[], set: OptionSet, budgetMs = 60_000): Promise<Op[]> {
  const first = await runOne(ops, set);
  if (first === undefined) return [...ops];
  // Nothing after the failing operation matters.
  const head = ops.slice(0, first.index + 1);
  return shrinkWith(
    head,
    async (candidate) => (await runOne(candidate, set)) !== undefined,
    budgetMs,
  );
}

/**
 * Delta debugging: the shortest list found that `fails` (only valid lists are tried),
 * dropping chunks of operations (halving the chunk size down to one), then single writes of
 * batches and transactions. REQUIRES: `fails(ops)`.
 */
export async function shrinkWith(
  ops: readonly Op[],
  fails: (candidate: Op[]) => Promise<boolean>,
  budgetMs = 60_000,
): Promise<Op[]> {
  const deadline = Date.now() + budgetMs;
  const tryList = async (candidate: Op[]) =>
    candidate.length > 0 && checkOps(candidate) === undefined && (await fails(candidate));
  let current = [...ops];
  for (let chunk = Math.max(1, current.length >> 1); chunk >= 1; chunk >>= 1) {
    for (let start = current.length - chunk; start >= 0 && Date.now() < deadline; start -= chunk) {
      const candidate = [...current.slice(0, start), ...current.slice(start + chunk)];
      if (await tryList(candidate)) current = candidate;
    }
  }
  // The writes inside batches and transactions, one at a time.
  for (let i = current.length - 1; i >= 0 && Date.now() < deadline; i--) {
    const at = current[i]!;
    if (at.t !== "batch" && at.t !== "txn") continue;
    let op: Extract<Op, { t: "batch" | "txn" }> = at;
    for (let j = op.ops.length - 1; j >= 0 && op.ops.length > 1; j--) {
      const smaller: Extract<Op, { t: "batch" | "txn" }> = {
        ...op,
        ops: op.ops.filter((_, x) => x !== j),
      };
      const candidate = [...current.slice(0, i), smaller, ...current.slice(i + 1)];
      if (await tryList(candidate)) {
        current = candidate;
        op = smaller;
      }
    }
  }
  return current;
}

/** A failure, printed: seed, operation index, both option sets, both results. */
export function describeFailure(seed: number, failure: Failure, reference: OptionSet): string {
  const m = failure.mismatch;
  return [
    `metamorphic mismatch: seed ${seed}, op ${m.index} (option set ${failure.setIndex})`,
    `  op:        ${formatOp(m.op)}`,
    `  got:       ${m.got.slice(0, 2000)}`,
    `  want:      ${m.want.slice(0, 2000)}`,
    `  failing options:   ${JSON.stringify(failure.set)}`,
    `  reference options: ${JSON.stringify(reference)}`,
  ].join("\n");
}

/** The text of a reproduction file: comments, the option sets to run, the operations. */
export function formatReproduction(
  title: readonly string[],
  sets: readonly OptionSet[],
  ops: readonly Op[],
): string {
  return [
    ...title.map((t) => `# ${t}`),
    ...sets.map((s) => `options ${JSON.stringify(s)}`),
    ...ops.map((op) => `op ${formatOp(op)}`),
    "",
  ].join("\n");
}

/** Reads `formatReproduction`'s text; a malformed line is a TypeError naming it. */
export function parseReproduction(text: string): { sets: OptionSet[]; ops: Op[] } {
  const sets: OptionSet[] = [];
  const ops: Op[] = [];
  for (const [n, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    if (line.startsWith("options ")) sets.push(JSON.parse(line.slice(8)) as OptionSet);
    else if (line.startsWith("op ")) ops.push(parseOp(line.slice(3)));
    else throw new TypeError(`line ${n + 1}: not "options", "op" or a comment: ${line}`);
  }
  return { sets, ops };
}
