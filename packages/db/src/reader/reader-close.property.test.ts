/**
 * The reader's begin-of-read check (reader.ts `refresh`) loads only the change counter when
 * nothing changed and reads the closed word only once the counter moved: the writer's close
 * sets `closed` and then bumps `changes` (core/reader-control.ts `publishClosed`). This
 * property test drives a reader in the writer's thread through random puts, reads of every
 * kind and a writer close at a random point (after a read that caught up, after a write
 * not read yet, or before any read): before the close every read sees the latest put;
 * after it every read throws Closed, however many reads came since the last catch-up.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ErrorCode } from "@shale/base";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { openReader } from "./open-reader.js";
import type { Reader } from "./reader.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

type Step = { op: "put"; key: number } | { op: "read"; kind: number; key: number };

const READS = ["get", "getView", "getMany", "iterator", "snapshot", "sequence"] as const;
const key = (i: number) => `k${i}`;

/** One read of kind `kind`: the value of `k` it sees (as text), or its sequence. */
function read(reader: Reader, kind: number, k: string): string | number | undefined {
  const text = (v: Uint8Array | undefined) =>
    v === undefined ? undefined : new TextDecoder().decode(v);
  switch (READS[kind]) {
    case "get":
      return text(reader.get(k));
    case "getView":
      return text(reader.getView(k));
    case "getMany":
      return text(reader.getMany([k])[0]);
    case "iterator": {
      const it = reader.iterator({ gte: k, lte: k });
      it.seekToFirst();
      const v = it.valid() ? text(it.value()) : undefined;
      it.close();
      return v;
    }
    case "snapshot": {
      const s = reader.snapshot();
      const v = text(reader.get(k, { snapshot: s }));
      s.release();
      return v;
    }
    default:
      return reader.sequence;
  }
}

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant("put" as const), key: fc.nat(4) }),
  fc.record({
    op: fc.constant("read" as const),
    kind: fc.nat(READS.length - 1),
    key: fc.nat(4),
  }),
);

describe("a reader's begin-of-read check against the writer's close", () => {
  it("sees every put before the close and Closed on every read after it", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 30 }),
        fc.array(fc.nat(READS.length - 1), { minLength: 1, maxLength: 6 }),
        async (before, after) => {
          const dir = mkdtempSync(join(tmpdir(), "shale-reader-close-"));
          dirs.push(dir);
          const db = await DB.open(dir);
          const reader = await openReader(db.readerHandle());
          const model = new Map<string, string>();
          let n = 0;
          for (const s of before) {
            const k = key(s.key);
            if (s.op === "put") {
              const v = `v${n++}`;
              db.put(k, v);
              model.set(k, v);
            } else {
              const got = read(reader, s.kind, k);
              if (READS[s.kind] === "sequence") expect(got).toBe(n);
              else expect(got).toBe(model.get(k));
            }
          }
          await db.close();
          for (const kind of after) {
            let error: unknown;
            try {
              read(reader, kind, key(0));
            } catch (e) {
              error = e;
            }
            expect(error, READS[kind]).toMatchObject({ code: ErrorCode.Closed });
          }
          await reader.close();
        },
      ),
      { numRuns: 40 },
    );
  }, 60_000);
});
