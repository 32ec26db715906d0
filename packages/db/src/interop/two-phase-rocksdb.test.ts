/**
 * Two-phase commit against RocksDB 7.8.3 (WriteCommitted TransactionDB), both ways, where
 * g++ and librocksdb-dev are installed (elsewhere skipped with the reason printed). The
 * RocksDB side is producers/rocksdb-two-phase.cc, compiled here.
 *
 * | direction                   | RocksDB's side                                    | shale's side |
 * |-----------------------------|---------------------------------------------------|--------------|
 * | RocksDB writes, shale reads | a committed, a rolled-back and an undecided prepared transaction, then a crash; plain Puts (Noop-led batches) | plain open: NotSupported; transactionDB: the committed one applied, the undecided one prepared (commit it) |
 * | shale writes, RocksDB reads | GetAllPreparedTransactions, Commit, Get            | the same three, closed; after RocksDB's commit shale reopens and reads it (its prepare in an older WAL) |
 * | both                        | `ldb dump_wal`                                     | decodes shale's prepare, commit and rollback records |
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { isShaleError } from "@shale/base";
import { afterAll, describe, expect, it } from "vitest";
import { DB } from "../db.js";
import { filesEnding, missingToolsReason, mustRun, tempDir } from "./interop.test-support.js";

const source = join(import.meta.dirname, "producers", "rocksdb-two-phase.cc");
const tmp = tempDir("two-phase");
afterAll(() => tmp.remove());

function unavailableReason(): string | undefined {
  if (!existsSync("/usr/include/rocksdb/utilities/transaction_db.h"))
    return "RocksDB's headers are missing (apt-get install librocksdb-dev)";
  const r = spawnSync("g++", ["--version"], { encoding: "utf8" });
  if (r.error !== undefined) return "g++ is not on the PATH";
  return undefined;
}
const unavailable = unavailableReason();
if (unavailable !== undefined)
  console.log(`two-phase commit with RocksDB: skipped — ${unavailable}`);

let binary: string | undefined;
/** Builds producers/rocksdb-two-phase.cc once. */
function rocksdb(mode: "write" | "commit", dir: string): string {
  if (binary === undefined) {
    const out = join(tmp.path, "rocksdb-two-phase");
    const r = spawnSync("g++", ["-O0", "-std=c++17", source, "-o", out, "-lrocksdb"], {
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    binary = out;
  }
  const r = spawnSync(binary, [mode, dir], { encoding: "utf8", timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

const dec = new TextDecoder();
const str = (b: Uint8Array | undefined) => (b === undefined ? undefined : dec.decode(b));

describe.skipIf(unavailable !== undefined)("two-phase commit with RocksDB", () => {
  it("shale replays RocksDB's prepared, committed and rolled-back transactions", async () => {
    const dir = join(tmp.path, "from-rocksdb");
    rocksdb("write", dir);
    await expect(DB.open(dir)).rejects.toSatisfy(
      (e: unknown) => isShaleError(e) && e.code === "NotSupported",
    );
    const db = await DB.open(dir, { transactionDB: {} });
    try {
      expect(str(db.get("plain"))).toBe("1");
      expect(str(db.get("ka"))).toBe("va");
      expect(db.get("kb")).toBeUndefined();
      expect(db.get("kc")).toBeUndefined();
      const prepared = db.getPreparedTransactions();
      expect(prepared.map((t) => t.name)).toEqual(["pending"]);
      prepared[0]!.commit();
      expect(str(db.get("kc"))).toBe("vc");
    } finally {
      await db.close();
    }
    const again = await DB.open(dir, { transactionDB: {} });
    expect(str(again.get("kc"))).toBe("vc");
    expect(again.getPreparedTransactions()).toEqual([]);
    await again.close();
  }, 120_000);

  it("RocksDB commits shale's prepared transaction, and shale reads the commit back", async () => {
    const dir = join(tmp.path, "from-shale");
    const db = await DB.open(dir, { transactionDB: {} });
    await db.put("plain", "1");
    const done = db.beginTransaction();
    done.setName("done");
    await done.put("ka", "va");
    done.prepare();
    done.commit();
    const dropped = db.beginTransaction();
    dropped.setName("dropped");
    await dropped.put("kb", "vb");
    dropped.prepare();
    dropped.rollback();
    const pending = db.beginTransaction();
    pending.setName("pending");
    await pending.put("kc", "vc");
    pending.prepare();
    await db.close();

    if (missingToolsReason() === undefined) {
      const dump = filesEnding(dir, ".log")
        .map((w) => mustRun("ldb", ["dump_wal", `--walfile=${join(dir, w)}`, "--print_value"]))
        .join("\n");
      expect(dump).toMatch(
        /BEGIN_PREPARE\(false\) PUT\(0\) : 0x6B61 : 0x7661 END_PREPARE\(0x646F6E65\)/,
      );
      expect(dump).toContain("COMMIT(0x646F6E65)");
      expect(dump).toContain("ROLLBACK(0x64726F70706564)");
    }

    expect(rocksdb("commit", dir).trim().split("\n")).toEqual([
      "prepared pending",
      "plain=1",
      "ka=va",
      "kb=NotFound",
      "kc=vc",
    ]);
    // RocksDB's commit record is in its new WAL; the prepare stayed in shale's WAL, which
    // RocksDB kept without recording MinLogNumberToKeep
    const after = await DB.open(dir, { transactionDB: {} });
    try {
      expect(str(after.get("kc"))).toBe("vc");
      expect(after.get("kb")).toBeUndefined();
      expect(after.getPreparedTransactions()).toEqual([]);
    } finally {
      await after.close();
    }
  }, 120_000);
});
