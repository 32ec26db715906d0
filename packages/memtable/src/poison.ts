/**
 * Invariants mode: the byte released chunks (chunk-pool.ts) and kept first chunks
 * (spare-first-chunks.ts) are filled with before reuse, so a reader that outlived its
 * reference reads garbage a test notices.
 */
export const POISON_BYTE = 0xdb;
