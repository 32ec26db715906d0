/**
 * A user key's first word: the range of first words a memtable holds settles a get of a key
 * outside it with two integer comparisons (MemTable.lowWord / highWord).
 */

/** First words are below this (30 bits). */
export const WORD_LIMIT = 0x40000000;

/**
 * The first 30 bits of `key`'s bytes (zero past its end), big-endian: a number in
 * [0, 2^30), so a small integer wherever it goes (a full 32-bit word above 2^30 is a heap
 * number once it leaves a register: an allocation per call where this is not inlined).
 * Keys in byte order have first words in the same order (ties allowed).
 */
export function firstWord(key: Uint8Array): number {
  const n = key.length;
  if (n >= 4) return (key[0]! << 22) | (key[1]! << 14) | (key[2]! << 6) | (key[3]! >>> 2);
  let word = 0;
  for (let i = 0; i < 4; i++) word = (word << 8) | (i < n ? key[i]! : 0);
  return word >>> 2;
}
