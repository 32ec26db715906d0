/**
 * Model test: random sequences of FileSystem operations on `OpfsFileSystem` (over the fake
 * OPFS, with a tiny handle pool and transfer area so eviction and split transfers happen
 * all the time) and on `MemoryFileSystem` give the same results, errors included.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FileSystem, isShaleError, MemoryFileSystem } from "@shale/base";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OpfsFileSystem } from "./opfs-file-system.js";
import { openFakeOpfsFileSystem } from "./testing/index.js";

const NAMES = ["a", "b", "c", "d/x", "d/y"] as const;

type Op =
  | { type: "write"; name: string; bytes: Uint8Array; append: boolean; sync: boolean }
  | { type: "rename"; from: string; to: string }
  | { type: "remove"; name: string }
  | { type: "truncate"; name: string; size: number }
  | { type: "read"; name: string; offset: number; length: number }
  | { type: "mkdir" };

const name = fc.constantFrom(...NAMES);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    type: fc.constant("write" as const),
    name,
    bytes: fc.uint8Array({ maxLength: 300 }),
    append: fc.boolean(),
    sync: fc.boolean(),
  }),
  fc.record({ type: fc.constant("rename" as const), from: name, to: name }),
  fc.record({ type: fc.constant("remove" as const), name }),
  fc.record({ type: fc.constant("truncate" as const), name, size: fc.nat(400) }),
  fc.record({ type: fc.constant("read" as const), name, offset: fc.nat(400), length: fc.nat(300) }),
  fc.record({ type: fc.constant("mkdir" as const) }),
);

/** What an operation gave: a value, or the error's code and errno. */
function outcome(fs: FileSystem, root: string, o: Op): unknown {
  const at = (n: string): string => `${root}/${n}`;
  try {
    switch (o.type) {
      case "write": {
        const w = fs.openWritable(at(o.name), { append: o.append, bufferSize: 64 });
        w.append(o.bytes);
        if (o.sync) w.sync();
        const size = w.size;
        w.close();
        return size;
      }
      case "rename":
        fs.rename(at(o.from), at(o.to));
        return "renamed";
      case "remove":
        fs.remove(at(o.name));
        return "removed";
      case "truncate":
        fs.truncate(at(o.name), o.size);
        return "truncated";
      case "read": {
        const r = fs.openRandomAccess(at(o.name));
        const dst = new Uint8Array(o.length);
        const n = r.read(o.offset, o.length, dst);
        r.close();
        return Array.from(dst.subarray(0, n));
      }
      case "mkdir":
        fs.mkdir(at("d"));
        return "made";
    }
  } catch (err) {
    if (!isShaleError(err)) throw err;
    return { code: err.code, errno: (err.cause as { code?: string } | undefined)?.code };
  }
}

/** Every file's contents and every directory's listing. */
function snapshot(fs: FileSystem, root: string): unknown {
  const out: Record<string, unknown> = { "": fs.list(root) };
  if (fs.exists(`${root}/d`)) out.d = fs.list(`${root}/d`);
  for (const n of NAMES) {
    const p = `${root}/${n}`;
    if (fs.exists(p)) out[n] = Array.from(fs.readFile(p));
  }
  return out;
}

describe("OpfsFileSystem against MemoryFileSystem (model)", () => {
  let dir: string;
  let opfs: OpfsFileSystem;
  let run = 0;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "shale-opfs-model-"));
    opfs = await openFakeOpfsFileSystem(
      "model",
      { dir, move: "no-overwrite" },
      { maxOpenHandles: 2, transferSize: 48 },
    );
  });
  afterAll(async () => {
    await opfs.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("random operation sequences agree, errors included", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 25 }), (ops) => {
        const root = `r${run++}`;
        const memory = new MemoryFileSystem();
        memory.mkdir(root);
        opfs.mkdir(root);
        for (const o of ops) expect(outcome(opfs, root, o)).toEqual(outcome(memory, root, o));
        expect(snapshot(opfs, root)).toEqual(snapshot(memory, root));
        expect(opfs.stats().openHandles).toBeLessThanOrEqual(2);
      }),
      { numRuns: 150 },
    );
  });
});
