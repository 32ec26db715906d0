/**
 * In-place seek inside one restart run of a key/value block of internal keys with bytewise
 * user keys (the data-block half of a point lookup).
 *
 * Entries of a run are prefix-compressed: key_e = key_{e-1}[0, shared_e) ‖ delta_e. A plain
 * scan rebuilds every key in a buffer and compares it with the target from byte 0. This scan
 * keeps `m`, the length of the prefix the current key shares with the target, and whether
 * the key sorts below the target because of a differing byte at `m` (`decided`):
 *
 * ```
 *   target   00 00 00 00 00 0f 42 40 ...     key_e < target, first difference at m = 6
 *   key_e    00 00 00 00 00 0f 3a 98 ...
 *   key_e+1  shared 7 > m: bytes [0, 7) are key_e's, so key_e+1[6] = 3a < 42: still below,
 *            no comparison at all
 *   key_e+2  shared 5 <= m: bytes [0, 5) equal the target's, so compare target[5...] with
 *            delta_e+2 in the block, in place
 * ```
 * So no key is rebuilt during the scan and a comparison reads only delta bytes. The entry
 * found was compared, so its shared prefix is the target's: its key is the target's first
 * `shared` bytes and its delta (`copyFoundKey`).
 *
 * When a key's user key equals (or is a prefix of) the target's, its trailer (or length)
 * decides and the next key is compared from min(shared, m). Cases the in-place rules do not
 * cover return `SCAN_FALLBACK` and the caller scans the run the plain way: a key sharing
 * more than `m` bytes with one that is below the target without a differing byte, a key
 * that must be compared and shares bytes of the previous key's trailer (older versions of a
 * user key below the target are skipped like any key below it), lengths that need more than
 * one varint byte, and malformed entries (the plain scan reports the Corruption).
 */
import { fixed32At, TRAILER_SIZE } from "@shale/base";
import { restartAt } from "./restart-array.js";

const fixed32 = fixed32At;

/*
 * Prefetching by touching. A seek in a block that is not in the CPU caches waits for one
 * line after another: each binary-search probe and each entry's header give the address of
 * the next read. Loads whose addresses are known up front are independent, so the CPU
 * overlaps their misses (JavaScript has no prefetch instruction): `BlockIterator.seek`
 * first loads the first byte of every restart entry (the binary search's probes), then
 * every line of the run it picked if the run is short (dense entry headers; the lines of
 * long values would be loaded for nothing). table-bench, random gets of a 1M-entry table
 * (blocks cold in the CPU caches): ~10 % less CPU per get than without; touching whole
 * blocks instead gained as much when cold but cost ~70 ns per get when the block was cached.
 */

/** Blocks with at most this many restart points get their restart entries touched. */
export const MAX_TOUCHED_RESTARTS = 64;
/** Runs of at most this many bytes get their lines touched. */
export const MAX_TOUCHED_RUN = 4096;

/** Sum of the first byte of each restart entry (store it somewhere: see above). */
export function touchRestartEntries(data: Uint8Array, restartsOffset: number, n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i++) sum += data[restartAt(data, restartsOffset, i)]!;
  return sum;
}

/** Sum of one byte of every 64-byte line of `data[start, end)` (store it: see above). */
export function touchLines(data: Uint8Array, start: number, end: number): number {
  let sum = 0;
  for (let x = start; x < end; x += 64) sum += data[x]!;
  return sum;
}

/** `scanRun`: every entry of the run is < target. */
export const SCAN_RUN_END = -1;
/** `scanRun`: the in-place rules do not apply; scan the run the plain way. */
export const SCAN_FALLBACK = -2;

/**
 * Scans the run of entries [p, runEnd) of `data` (entries end at `limit`; the run starts at
 * a restart point) for the first key >= `target`. Returns that entry's offset, SCAN_RUN_END
 * when every key of the run is < target, or SCAN_FALLBACK.
 *
 * The entry returned has one-byte lengths (shared, unshared and value length at p, p + 1,
 * p + 2, checked) and its first `shared` key bytes equal the target's, so its key is
 * `target[0, shared) ‖ data[p + 3, p + 3 + unshared)` (see `copyFoundKey`).
 * REQUIRES: `target` is an internal key; keys compare as `compareInternalBytewise`.
 */
export function scanRun(
  data: Uint8Array,
  p: number,
  runEnd: number,
  limit: number,
  target: Uint8Array,
): number {
  const tu = target.length - TRAILER_SIZE;
  if (tu < 0) return SCAN_FALLBACK;
  let previousLength = 0;
  // The current key's first m bytes equal the target's; `decided`: its byte m is smaller.
  let m = 0;
  let decided = false;
  while (p < runEnd) {
    if (p + 3 > limit) return SCAN_FALLBACK;
    const shared = data[p]!;
    const unshared = data[p + 1]!;
    const valueLength = data[p + 2]!;
    // Multi-byte lengths (rare) and malformed entries are left to the plain scan.
    if ((shared | unshared | valueLength) >= 0x80) return SCAN_FALLBACK;
    const q = p + 3;
    const ku = shared + unshared - TRAILER_SIZE;
    if (shared > previousLength || q + unshared + valueLength > limit || ku < 0) {
      return SCAN_FALLBACK; // the plain scan reports the malformed entry
    }
    // decided && shared > m: this key has the previous key's byte m, below the target's, so
    // it is below too — also when it shares the previous key's whole user key (ku < shared:
    // an older version of the same user key, as a table keeps under a snapshot).
    if (!decided || shared <= m) {
      // Bytes [0, shared) equal the target's: compare the rest, from the delta.
      if (shared > m) return SCAN_FALLBACK; // bytes [m, shared) are not in the delta
      if (ku < shared) return SCAN_FALLBACK; // shares bytes of the previous key's trailer
      const n = ku < tu ? ku : tu;
      let i = shared;
      let d = 0;
      for (; i < n; i++) {
        d = data[q + i - shared]! - target[i]!;
        if (d !== 0) break;
      }
      if (d > 0) return p;
      if (d < 0) {
        m = i;
        decided = true;
      } else if (ku > tu) {
        return p; // the target's user key is a prefix of this one
      } else {
        // This user key is a prefix of the target's (below it), or equal to it: then the
        // trailers decide, descending (the key is below the target if its seq is higher).
        if (ku === tu) {
          const t = q + ku - shared;
          const khi = fixed32(data, t + 4);
          const thi = fixed32(target, tu + 4);
          const c = khi !== thi ? thi - khi : fixed32(target, tu) - fixed32(data, t);
          if (c >= 0) return p;
        }
        m = ku;
        decided = false;
      }
    }
    previousLength = shared + unshared;
    p = q + unshared + valueLength;
  }
  return SCAN_RUN_END;
}

/**
 * Writes the key of the entry at `p` found by `scanRun` for `target` into `out` and returns
 * its length. REQUIRES: `out` can hold it (shared + unshared bytes).
 */
export function copyFoundKey(
  data: Uint8Array,
  p: number,
  target: Uint8Array,
  out: Uint8Array,
): number {
  const shared = data[p]!;
  const length = shared + data[p + 1]!;
  for (let i = 0; i < shared; i++) out[i] = target[i]!;
  const q = p + 3 - shared;
  for (let i = shared; i < length; i++) out[i] = data[q + i]!;
  return length;
}
