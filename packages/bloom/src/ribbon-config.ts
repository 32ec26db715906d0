/**
 * Sizing of RocksDB's Standard128 Ribbon filter (`util/ribbon_config.cc`,
 * `util/ribbon_impl.h` `SerializableInterleavedSolution`, `table/block_based/
 * filter_policy.cc` `Standard128RibbonBitsBuilder::CalculateSpaceAndSlots`): how many slots
 * a number of keys needs, how many bytes of solution a false-positive target takes, and the
 * column layout a (blocks, bytes) pair implies. Every formula, constant and floating-point
 * step is RocksDB's: the sizes are part of the format (the reader derives the layout from
 * the byte count and the block count in the metadata), and a builder that rounded
 * differently would write other bytes than RocksDB for the same keys.
 *
 * ```
 *   keys --GetNumSlots (kOneIn20 table)--> slots --round up to 128, min 256--> numSlots
 *   numSlots, 1/fp, rounding --GetBytesForOneInFpRate--> bytes (multiple of 16)
 *   numBlocks = numSlots / 128, numSegments = bytes / 16
 *   upperColumns = ceil(numSegments / numBlocks)            (at most 32)
 *   upperStartBlock = upperColumns * numBlocks - numSegments
 *   blocks [0, upperStartBlock) have upperColumns - 1 columns, the others upperColumns
 * ```
 */
import { chooseNumProbes, millibitsPerKey } from "./format.js";
import { cacheLocalFpRate } from "./fp-rate.js";

/** Bits per coefficient row = slots per block (RocksDB's kCoeffBits for Unsigned128). */
export const COEFF_BITS = 128;
/** Bytes of one segment (one column of one block). */
export const SEGMENT_BYTES = 16;
/** Most result columns (bits of the uint32 ResultRow). */
export const MAX_COLUMNS = 32;
/** More keys than this: RocksDB falls back to the Bloom filter (kMaxRibbonEntries). */
export const MAX_RIBBON_ENTRIES = 950000000;
/** Ribbon below this many slots competes with Bloom on size (`CalculateSpaceAndSlots`). */
export const BLOOM_COMPARE_SLOTS = 1024;

/**
 * Keys addable to 2^i slots with about 1 in 20 construction failures per seed, for 128-bit
 * coefficient rows without "smash" (RocksDB's measured table; 0 = unsupported size).
 */
const KNOWN_TO_ADD_BY_POW2 = [
  0, 0, 0, 0, 0, 0, 0, 0, 248.851, 499.532, 1001.26, 2003.97, 4005.59, 8000.39, 15966.6, 31828.1,
  63447.3, 126506,
] as const;
const KNOWN_SIZE = 18;
const FACTOR_PER_POW2 = 0.0038;
const FINAL_KNOWN_FACTOR = (1.0 * 2 ** (KNOWN_SIZE - 1)) / KNOWN_TO_ADD_BY_POW2[KNOWN_SIZE - 1]!;
const BASE_FACTOR = FINAL_KNOWN_FACTOR - (KNOWN_SIZE - 1) * FACTOR_PER_POW2;

function numToAddForPow2(log2NumSlots: number): number {
  if (log2NumSlots < KNOWN_SIZE) return KNOWN_TO_ADD_BY_POW2[log2NumSlots]!;
  return (1.0 * 2 ** log2NumSlots) / (BASE_FACTOR + log2NumSlots * FACTOR_PER_POW2);
}

/**
 * Slots for `numToAdd` keys (RocksDB's `BandingConfigHelper1<kOneIn20, 128, false,
 * false>::GetNumSlots`), before `roundUpNumSlots`. 0 keys -> 0.
 */
export function ribbonNumSlotsFor(numToAdd: number): number {
  if (numToAdd === 0) return 0;
  // RocksDB's own truncated 1/ln 2, not Math.LOG2E: the slot count must round as RocksDB's.
  // biome-ignore lint/suspicious/noApproximativeNumericConstant: RocksDB's constant is part of the sizing
  const log2NumToAdd = Math.log(numToAdd) * 1.4426950409;
  let approxLog2Slots = Math.trunc(log2NumToAdd + 0.5);
  let lowerNumToAdd = numToAddForPow2(approxLog2Slots);
  let upperNumToAdd: number;
  if (approxLog2Slots === 0 || lowerNumToAdd === 0) {
    return 2 * COEFF_BITS; // the minimum without smash
  } else if (numToAdd < lowerNumToAdd) {
    upperNumToAdd = lowerNumToAdd;
    approxLog2Slots--;
    lowerNumToAdd = numToAddForPow2(approxLog2Slots);
  } else {
    upperNumToAdd = numToAddForPow2(approxLog2Slots + 1);
  }
  const upperPortion = (numToAdd - lowerNumToAdd) / (upperNumToAdd - lowerNumToAdd);
  const lowerNumSlots = 1.0 * 2 ** approxLog2Slots;
  return Math.trunc(upperPortion * lowerNumSlots + lowerNumSlots + 0.999999999) >>> 0;
}

/** A multiple of 128, and never exactly 128 (one start is not enough): RoundUpNumSlots. */
export function roundUpNumSlots(numSlots: number): number {
  let corrected = Math.trunc((numSlots + COEFF_BITS - 1) / COEFF_BITS) * COEFF_BITS;
  if (corrected === COEFF_BITS) corrected += COEFF_BITS;
  return corrected;
}

/** `roundUpNumSlots(ribbonNumSlotsFor(numKeys))`: the slots of a filter of `numKeys`. */
export function ribbonSlotsForKeys(numKeys: number): number {
  return roundUpNumSlots(ribbonNumSlotsFor(numKeys));
}

/** floor(log2(x)) of a positive 32-bit integer. */
function floorLog2(x: number): number {
  return 31 - Math.clz32(x);
}

/**
 * Bytes of solution for `numSlots` slots and a target of 1 false positive in
 * `oneInFpRate` (RocksDB's `GetBytesForOneInFpRate`): blocks get `floor(log2(oneIn))` or
 * one more columns, the split chosen so the average rate meets the target; `rounding32`
 * (RocksDB: the upper 32 bits of the first key's hash) biases the split's rounding.
 * REQUIRES: numSlots a multiple of 128, at least 256.
 */
export function ribbonBytesForOneInFpRate(
  numSlots: number,
  oneInFpRate: number,
  rounding32: number,
): number {
  const fpRate = 1.0 / oneInFpRate;
  if (!(oneInFpRate > 1.0 && fpRate < 1.0)) return SEGMENT_BYTES; // 100 % FP rate (or NaN)
  if (!(oneInFpRate <= 0xffffffff)) return numSlots * 4; // all 32 columns
  const rounded = Math.trunc(oneInFpRate) >>> 0;
  const lowerColumns = floorLog2(rounded);
  const lowerColumnsFpRate = 2 ** -lowerColumns;
  const upperColumnsFpRate = 2 ** -(lowerColumns + 1);
  const lowerPortion = (fpRate - upperColumnsFpRate) / (lowerColumnsFpRate - upperColumnsFpRate);
  const roundingBias = ((rounding32 >>> 0) + 0.5) / 4294967296;
  const numStarts = numSlots - COEFF_BITS + 1;
  const upperStartBlock = Math.trunc((lowerPortion * numStarts + roundingBias) / COEFF_BITS);
  const numBlocks = numSlots / COEFF_BITS;
  const numSegments = numBlocks * lowerColumns + (numBlocks - upperStartBlock);
  return numSegments * SEGMENT_BYTES;
}

/**
 * RocksDB's target of one false positive in N for a Ribbon policy at `bitsPerKey`
 * "Bloom-equivalent" bits per key (`BloomLikeFilterPolicy`'s `desired_one_in_fp_rate_`):
 * the FP rate FastLocalBloom has at that setting, so a Ribbon filter matches Bloom's
 * accuracy in about 30 % less space. 10 bits/key -> 1 in 104.7 (0.955 %).
 */
export function ribbonOneInFpRate(bitsPerKey: number): number {
  return 1.0 / cacheLocalFpRate(bitsPerKey, chooseNumProbes(millibitsPerKey(bitsPerKey)), 512);
}

/** The column layout of a solution (`SerializableInterleavedSolution::InternalConfigure`). */
export interface RibbonLayout {
  /** Columns of the blocks at or after `upperStartBlock` (0: no data, always "may match"). */
  upperNumColumns: number;
  /** First block with `upperNumColumns` columns; earlier ones have one fewer. */
  upperStartBlock: number;
  /** Segments used (16 bytes each); bytes past them are unused. */
  numSegments: number;
}

/** The layout of `numBlocks` (>= 1) blocks in `bytes` bytes of solution. */
export function ribbonLayout(numBlocks: number, bytes: number): RibbonLayout {
  let numSegments = Math.floor(bytes / SEGMENT_BYTES);
  let upperNumColumns = Math.trunc((numSegments + numBlocks - 1) / numBlocks);
  let upperStartBlock = upperNumColumns * numBlocks - numSegments;
  if (upperNumColumns > MAX_COLUMNS) {
    upperNumColumns = MAX_COLUMNS;
    upperStartBlock = 0;
    numSegments = numBlocks * MAX_COLUMNS;
  }
  return { upperNumColumns, upperStartBlock, numSegments };
}

/**
 * Expected false-positive rate of a layout (RocksDB's `ExpectedFpRate`): each column halves
 * it; blocks before `upperStartBlock` have one column fewer.
 */
export function ribbonExpectedFpRate(numBlocks: number, bytes: number): number {
  const { upperNumColumns, upperStartBlock } = ribbonLayout(numBlocks, bytes);
  const numStarts = numBlocks * COEFF_BITS - COEFF_BITS + 1;
  const lowerPortion = (upperStartBlock * 1.0 * COEFF_BITS) / numStarts;
  return (
    lowerPortion * 0.5 ** (upperNumColumns - 1) + (1.0 - lowerPortion) * 0.5 ** upperNumColumns
  );
}
