// Compaction filters and a merge operator named by module in the compaction-filter and TTL
// tests. Each tells which thread ran it ("main" or "worker") where a test needs to know.
import { isMainThread } from "node:worker_threads";

const text = new TextDecoder();
const bytes = new TextEncoder();
const thread = () => (isMainThread ? "main" : "worker");

/** Removes keys starting "tmp"; appends "!" to values of keys starting "chg"; tags "tag" keys. */
export function rules(key, value) {
  const k = text.decode(key);
  if (k.startsWith("tmp")) return true;
  if (k.startsWith("chg")) return bytes.encode(`${text.decode(value)}!`);
  if (k.startsWith("tag")) return bytes.encode(`${text.decode(value)}:${thread()}`);
  if (k.startsWith("keep")) return false;
  return undefined;
}

/** Records the level it was given in the value of keys starting "lvl". */
export function levels(key, value, context) {
  const k = text.decode(key);
  if (k.startsWith("lvl")) return bytes.encode(`${text.decode(value)}@${context.level}`);
  return undefined;
}

/**
 * Takes merge operands too (filterMergeOperands): removes operands "drop", makes "up" "UP",
 * tags operands "tag" with the thread; keeps every value.
 */
export function operands(_key, value, context) {
  if (context.valueType !== "mergeOperand") return undefined;
  const v = text.decode(value);
  if (v === "drop") return true;
  if (v === "up") return bytes.encode("UP");
  if (v === "tag") return bytes.encode(`tag:${thread()}`);
  return undefined;
}
operands.filterMergeOperands = true;

/**
 * Takes merge operands too: answers with a view of its input, the value or operand without
 * its first byte (the compaction must copy it before its input moves on).
 */
export function cutFirstByte(_key, value) {
  return value.length > 0 ? value.subarray(1) : undefined;
}
cutFirstByte.filterMergeOperands = true;

export function throws() {
  throw new Error("the filter failed on purpose");
}

export function badDecision() {
  return 5;
}

export const notAFunction = 42;

/** Joins operands with "+" and tags the result with the thread that merged. */
export const threadMerge = {
  name: "thread-merge",
  fullMerge(_key, existing, operands) {
    const parts = [];
    if (existing !== undefined) parts.push(text.decode(existing).replace(/@\w+$/, ""));
    for (const o of operands) parts.push(text.decode(o));
    return bytes.encode(`${parts.join("+")}@${thread()}`);
  },
};

export default rules;
