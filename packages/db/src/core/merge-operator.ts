/**
 * Merge operators: read-modify-write without the read.
 *
 * `db.merge(key, operand)` stores an operand; reads (and later compactions) combine the
 * operands of a key, oldest to newest, with the newest base value below them:
 *
 * ```
 * key#9,MERGE "3"   key#7,MERGE "5"   key#4,SET "10"    --uint64add-->  18
 * ```
 *
 * `fullMerge(key, existing, operands)` gets the base value (`undefined` when there is none
 * or it was deleted) and the operands oldest first, and returns the merged value, or
 * `undefined` to signal failure (the read or compaction then fails with `Corruption`, as in
 * RocksDB). `partialMerge(key, left, right)` optionally combines two adjacent operands
 * (left older) into one, or returns `undefined` when it cannot.
 *
 * The operator's `name` is persisted; reopening a database with another operator is an
 * `InvalidArgument` error.
 */
import { compareBytes, type MergeOperator, ShaleError, toBytes } from "@shale/base";

export type { MergeOperator };

/** Keeps the bytewise-largest of the base and the operands (RocksDB's `max`). */
export const maxOperator: MergeOperator = Object.freeze({
  name: "max",
  fullMerge(
    _key: Uint8Array,
    existing: Uint8Array | undefined,
    operands: readonly Uint8Array[],
  ): Uint8Array {
    let best = existing;
    for (let i = 0; i < operands.length; i++) {
      const op = operands[i]!;
      if (best === undefined || compareBytes(op, best) > 0) best = op;
    }
    return best!;
  },
  partialMerge(_key: Uint8Array, left: Uint8Array, right: Uint8Array): Uint8Array {
    return compareBytes(left, right) >= 0 ? left : right;
  },
});

function readUint64(value: Uint8Array): number | undefined {
  if (value.length !== 8) return undefined;
  const lo = (value[0]! | (value[1]! << 8) | (value[2]! << 16)) + value[3]! * 0x1000000;
  const hi = (value[4]! | (value[5]! << 8) | (value[6]! << 16)) + value[7]! * 0x1000000;
  return hi * 4294967296 + lo;
}

/** Encodes a counter as 8 little-endian bytes (wrapping modulo 2^64 is not modelled above 2^53). */
export function encodeUint64(n: number): Uint8Array {
  const out = new Uint8Array(8);
  const hi = Math.floor(n / 4294967296) >>> 0;
  const lo = (n - Math.floor(n / 4294967296) * 4294967296) >>> 0;
  out[0] = lo;
  out[1] = lo >>> 8;
  out[2] = lo >>> 16;
  out[3] = lo >>> 24;
  out[4] = hi;
  out[5] = hi >>> 8;
  out[6] = hi >>> 16;
  out[7] = hi >>> 24;
  return out;
}

/** Decodes an 8-byte little-endian counter; throws InvalidArgument for other lengths. */
export function decodeUint64(value: Uint8Array): number {
  const n = readUint64(value);
  if (n === undefined)
    throw ShaleError.invalidArgument(`a uint64 value has 8 bytes, not ${value.length}`);
  return n;
}

/** `acc += operand` modulo 2^64, both 8-byte little-endian (byte-wise with carry, no BigInt). */
function addUint64Into(acc: Uint8Array, operand: Uint8Array): void {
  let carry = 0;
  for (let i = 0; i < 8; i++) {
    const s = acc[i]! + operand[i]! + carry;
    acc[i] = s;
    carry = s >>> 8;
  }
}

/**
 * Adds 8-byte little-endian unsigned counters (RocksDB's `uint64add`), wrapping modulo 2^64
 * as RocksDB's `UInt64AddOperator` does, so a database either engine wrote merges to the
 * same bytes. A base or operand that is not 8 bytes makes the merge fail (Corruption; RocksDB
 * logs an error and counts it as 0). `encodeUint64`/`decodeUint64` are exact up to 2^53 - 1.
 */
export const uint64AddOperator: MergeOperator = Object.freeze({
  name: "uint64add",
  fullMerge(_key: Uint8Array, existing: Uint8Array | undefined, operands: readonly Uint8Array[]) {
    if (existing !== undefined && existing.length !== 8) return undefined;
    const sum = new Uint8Array(8);
    if (existing !== undefined) sum.set(existing);
    for (let i = 0; i < operands.length; i++) {
      const op = operands[i]!;
      if (op.length !== 8) return undefined;
      addUint64Into(sum, op);
    }
    return sum;
  },
  partialMerge(_key: Uint8Array, left: Uint8Array, right: Uint8Array) {
    if (left.length !== 8 || right.length !== 8) return undefined;
    const sum = left.slice();
    addUint64Into(sum, right);
    return sum;
  },
});

/** Joins the base and the operands with a delimiter (RocksDB's `stringappend`). Default ",". */
export function stringAppendOperator(delimiter: string | Uint8Array = ","): MergeOperator {
  const delim = toBytes(delimiter, "delimiter");
  const join = (parts: readonly Uint8Array[], first: number): Uint8Array => {
    let n = 0;
    for (let i = first; i < parts.length; i++)
      n += parts[i]!.length + (i > first ? delim.length : 0);
    const out = new Uint8Array(n);
    let pos = 0;
    for (let i = first; i < parts.length; i++) {
      if (i > first) {
        out.set(delim, pos);
        pos += delim.length;
      }
      out.set(parts[i]!, pos);
      pos += parts[i]!.length;
    }
    return out;
  };
  return Object.freeze({
    name: "stringappend",
    fullMerge(_key: Uint8Array, existing: Uint8Array | undefined, operands: readonly Uint8Array[]) {
      return existing === undefined ? join(operands, 0) : join([existing, ...operands], 0);
    },
    partialMerge(_key: Uint8Array, left: Uint8Array, right: Uint8Array) {
      return join([left, right], 0);
    },
  });
}

/**
 * The `stringappend` operator with the default delimiter that `mergeOperator:
 * "stringappend"` resolves to: the one instance a worker can rebuild by name.
 */
export const DEFAULT_STRING_APPEND: MergeOperator = stringAppendOperator();

/** Resolves `options.mergeOperator`: an operator object, or a built-in by name. */
export function resolveMergeOperator(
  op: MergeOperator | string | undefined,
): MergeOperator | undefined {
  if (op === undefined) return undefined;
  if (typeof op === "string") {
    switch (op) {
      case "max":
        return maxOperator;
      case "uint64add":
        return uint64AddOperator;
      case "stringappend":
        return stringAppendOperator();
      default:
        throw ShaleError.invalidArgument(
          `unknown merge operator "${op}" (built-ins: max, uint64add, stringappend)`,
        );
    }
  }
  if (
    typeof op !== "object" ||
    op === null ||
    typeof op.fullMerge !== "function" ||
    typeof op.name !== "string"
  ) {
    throw new TypeError(
      "mergeOperator must be a built-in name or an object with name and fullMerge",
    );
  }
  return op;
}
