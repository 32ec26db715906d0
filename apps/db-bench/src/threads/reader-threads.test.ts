/**
 * `--threads=N` (threads/reader-threads.ts): N reader threads (the BUILT reader-thread.js)
 * each run the whole read workload on shale and on lmdb; the result sums their ops and
 * bytes, and each thread finds what one thread finds on the same keys; `--worker_readers`
 * runs one thread on a worker reader.
 */
import { describe, expect, it } from "vitest";
import { bench, entries, expectParsableLines, found } from "../test/helpers.js";

const NUM = 2000;

describe("--threads", () => {
  it.each(["shale", "lmdb"])(
    "%s: N threads each read the whole workload",
    async (engine) => {
      const one = await bench([
        `--engines=${engine}`,
        `--num=${NUM}`,
        "--benchmarks=fillrandom,readrandom,readseq,seekrandom",
      ]);
      const three = await bench([
        `--engines=${engine}`,
        `--num=${NUM}`,
        "--benchmarks=fillrandom,readrandom,readseq,seekrandom",
        "--threads=3",
      ]);
      expectParsableLines(three);
      const [fill1, read1, seq1, seek1] = one.results(engine);
      const [fill3, read3, seq3, seek3] = three.results(engine);
      expect(fill3!.ops).toBe(fill1!.ops); // fills run on one thread
      expect(read3!.ops).toBe(3 * read1!.ops);
      expect(read3!.message).toMatch(/^3 threads; thread 0: /);
      // Thread 0 draws the keys one thread draws (the same seed): it finds as many.
      expect(found(read3!)).toEqual(found(read1!));
      expect(seq3!.ops).toBe(3 * seq1!.ops);
      expect(entries(seq3!)).toBe(entries(seq1!));
      expect(seek3!.ops).toBe(3 * seek1!.ops);
      expect(found(seek3!)).toEqual(found(seek1!));
      expect(read3!.bytes).toBeGreaterThan(0);
      // --worker_readers: one thread, but a worker reader rather than the main thread's
      // database; it reads what the main thread reads.
      const worker = await bench([
        `--engines=${engine}`,
        `--num=${NUM}`,
        "--benchmarks=fillrandom,readrandom,readseq,seekrandom",
        "--threads=1",
        "--worker_readers",
      ]);
      const [, readW, seqW, seekW] = worker.results(engine);
      expect(readW!.message).toMatch(/^1 thread; thread 0: /);
      expect(readW!.ops).toBe(read1!.ops);
      expect(found(readW!)).toEqual(found(read1!));
      expect(entries(seqW!)).toBe(entries(seq1!));
      expect(found(seekW!)).toEqual(found(seek1!));
    },
    90_000,
  );

  it("refuses 0 and more than 64 threads", async () => {
    await expect(bench(["--threads=0", "--num=10"])).rejects.toThrow(/--threads must be/);
  });
});
