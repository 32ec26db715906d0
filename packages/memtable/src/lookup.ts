/**
 * The point part of `MemTable.get`: the newest entries of a user key visible at a snapshot,
 * folded into a LookupResult (semantics on MemTable.get). With a hash index the key's
 * newest entry comes from the index (a missing key costs a probe or two); the tree is
 * searched only when that entry is above the snapshot or a merge operand. Without one, a
 * key outside the tree's range is settled by two comparisons (BTree.outsideUserKeys), and
 * the tree is searched otherwise.
 */
import {
  KIND_FOR_SEEK,
  type LookupResult,
  LookupState,
  TRAILER_SIZE,
  trailerSeq,
  ValueKind,
} from "@shale/base";
import type { BTree } from "./btree.js";
import { NONE } from "./btree-layout.js";
import { readVarint32, varintEnd } from "./entry.js";
import { type HashIndex, hashKey } from "./hash-index.js";

/**
 * Folds the point entries of `userKey` visible at `snapshotSeq` into `result` (whose
 * maxCoveringSeq already counts this memtable's range tombstones). Sets the tree's target.
 */
export function lookupPoints(
  points: BTree,
  index: HashIndex | undefined,
  userKey: Uint8Array,
  snapshotSeq: number,
  result: LookupResult,
): void {
  if (index !== undefined) {
    if (index.pending) index.flush(); // (it changes the target)
    points.setTargetUser(userKey, snapshotSeq, KIND_FOR_SEEK);
    if (lookupIndexed(points, index, userKey, snapshotSeq, result)) return;
  } else {
    points.setTargetUser(userKey, snapshotSeq, KIND_FOR_SEEK);
    if (points.outsideUserKeys()) return;
  }
  points.seek(false);
  let leaf = points.leaf;
  let slot = points.slot;
  const cover = result.maxCoveringSeq;
  const entryChunks = points.entryChunks;
  const shift = points.arena.shift;
  const mask = points.arena.mask;
  while (leaf !== NONE) {
    const address = points.entryAt(leaf, slot);
    const chunk = entryChunks[address >>> shift]!;
    const ikeyLength = readVarint32(chunk, address & mask);
    const keyStart = varintEnd;
    const userLength = ikeyLength - TRAILER_SIZE;
    if (points.compareUserKeyAt(chunk, keyStart, userLength) !== 0) return;
    const t = keyStart + userLength;
    const kind = chunk[t]!;
    const seq = trailerSeq(chunk, t);
    if (seq < cover) {
      result.state = LookupState.Deleted;
      result.seq = seq;
      return;
    }
    if (kind === ValueKind.Merge || kind === ValueKind.Value || kind === ValueKind.BlobIndex) {
      const valueLength = readVarint32(chunk, t + TRAILER_SIZE);
      const valueStart = varintEnd;
      const view = new Uint8Array(
        points.arena.entryBuffers[address >>> shift]!,
        valueStart,
        valueLength,
      );
      if (kind !== ValueKind.Merge) {
        result.state = LookupState.Found;
        result.value = view;
        result.seq = seq;
        result.blobIndex = kind === ValueKind.BlobIndex;
        return;
      }
      result.operands.push(view);
      result.state = LookupState.Merging;
      if (++slot === points.count(leaf)) {
        leaf = points.nextLeaf(leaf);
        slot = 0;
      }
      continue;
    }
    result.state = LookupState.Deleted;
    result.seq = seq;
    return;
  }
}

/**
 * The index part: true when the newest entry of `userKey` settled the lookup (or there is
 * none), false when the tree must be searched (the newest entry is above the snapshot, or
 * a merge operand). REQUIRES: the tree's target is `userKey`; nothing queued in `index`.
 */
function lookupIndexed(
  points: BTree,
  index: HashIndex,
  userKey: Uint8Array,
  snapshotSeq: number,
  result: LookupResult,
): boolean {
  const slot = index.find(hashKey(userKey, 0, userKey.length));
  if (slot < 0) return true;
  const address = index.addressAt(slot);
  const chunk = points.entryChunks[address >>> points.arena.shift]!;
  const ikeyLength = readVarint32(chunk, address & points.arena.mask);
  const t = varintEnd + ikeyLength - TRAILER_SIZE;
  const kind = chunk[t]!;
  const seq = trailerSeq(chunk, t);
  if (seq > snapshotSeq || kind === ValueKind.Merge) return false;
  result.seq = seq;
  if (seq < result.maxCoveringSeq || (kind !== ValueKind.Value && kind !== ValueKind.BlobIndex)) {
    result.state = LookupState.Deleted;
    return true;
  }
  const valueLength = readVarint32(chunk, t + TRAILER_SIZE);
  const valueStart = varintEnd;
  result.state = LookupState.Found;
  result.blobIndex = kind === ValueKind.BlobIndex;
  // On the chunk's buffer (where the chunk starts): cheaper than subarray (no species lookup).
  result.value = new Uint8Array(
    points.arena.entryBuffers[address >>> points.arena.shift]!,
    valueStart,
    valueLength,
  );
  return true;
}
