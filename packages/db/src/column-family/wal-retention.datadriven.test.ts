/**
 * The WAL retention rule, data-driven (testdata/wal-retention/*.txt): a WAL is deleted only
 * when every column family with data in it has flushed — RocksDB's rule, the classic source
 * of lost writes. Each file drives a database (families `default`, `busy`, `idle` on a
 * MemoryFileSystem) and prints, after every command, what the rule decides:
 *
 * ```
 * wals: 000004 000009            the WALs on disk
 * default: log 9 mem 0 imm 0 L0 1   per family: the log number its MANIFEST records (WALs
 * busy: log 9 mem 0 imm 0 L0 1      below it hold nothing of the family that is not in its
 * idle: log 4 mem 1 imm 0 L0 0      tables), entries in its mutable memtable, immutable
 *                                   memtables, L0 tables
 * ```
 * and checks, every time, that a crash at that moment would lose no acknowledged write
 * (`crash now, lost: none`).
 *
 * Commands:
 * - `open [atomic] [max-total-wal-size=<bytes>]` — a new database (`atomic`: with
 *   `atomicFlush`; `maxTotalWalSize` when given).
 * - `put cf=<family> keys=(k1, k2, ...)` — one put per key (value `<family>.<key>.<n>`).
 * - `batch` — input: `<family> <key>` lines, written as ONE batch across the families.
 * - `flush cf=<family>` — that family's flush (awaited).
 * - `wait` — every family's background flushes done (`db.waitForCompactions()`).
 * - `crash` — the directory as a killed process leaves it is reopened (the old instance is
 *   dropped); prints every acknowledged key missing from its family (`lost: none` when the
 *   rule held).
 * - `reopen` — close and open again.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bytewiseComparator, InternalKeyComparator, MemoryFileSystem } from "@shale/base";
import {
  type DataDrivenCase,
  dataDrivenFiles,
  formatMismatches,
  normalizeOutput,
  parseDataDriven,
  rewriteDataDriven,
  rewriteRequested,
} from "@shale/base/testing";
import { describe, it } from "vitest";
import { DB } from "../db.js";
import { crashCopy } from "../test-support/crash-copy.test-support.js";
import { recoverManifest } from "../version/manifest-recovery.js";
import { WriteBatch } from "../write/write-batch.js";

const FAMILIES = ["default", "busy", "idle"] as const;
const icmp = new InternalKeyComparator(bytewiseComparator);

class Harness {
  fs = new MemoryFileSystem();
  db: DB | undefined;
  atomic = false;
  maxTotalWalSize: number | undefined;
  /** Every acknowledged put: family/key -> value. */
  readonly model = new Map<string, string>();
  private n = 0;

  private options() {
    return {
      fs: this.fs,
      atomicFlush: this.atomic,
      ...(this.maxTotalWalSize === undefined ? {} : { maxTotalWalSize: this.maxTotalWalSize }),
      createMissingColumnFamilies: true,
      columnFamilies: { busy: {}, idle: {} },
      disableAutoCompactions: true,
    };
  }

  private handle(cf: string) {
    const db = this.db!;
    if (!(FAMILIES as readonly string[]).includes(cf)) throw new TypeError(`no family ${cf}`);
    return cf === "default" ? db : db.columnFamily(cf);
  }

  async run(c: DataDrivenCase): Promise<string> {
    switch (c.cmd) {
      case "open":
        this.fs = new MemoryFileSystem();
        this.atomic = c.hasArg("atomic");
        this.maxTotalWalSize = c.hasArg("max-total-wal-size")
          ? Number(c.arg("max-total-wal-size"))
          : undefined;
        this.model.clear();
        this.db = await DB.open("/db", this.options());
        return await this.state();
      case "put": {
        const cf = c.arg("cf");
        for (const key of c.argValues("keys")) {
          const value = `${cf}.${key}.${this.n++}`;
          this.handle(cf).put(key, value);
          this.model.set(`${cf}/${key}`, value);
        }
        return await this.state();
      }
      case "batch": {
        const batch = new WriteBatch();
        const writes: [string, string, string][] = [];
        for (const line of c.input.split("\n")) {
          const [cf, key] = line.trim().split(/\s+/);
          if (cf === undefined || key === undefined) c.fail(`bad batch line ${line}`);
          const value = `${cf}.${key}.${this.n++}`;
          batch.put(key, value, cf === "default" ? undefined : this.db!.columnFamily(cf));
          writes.push([cf, key, value]);
        }
        this.db!.write(batch);
        for (const [cf, key, value] of writes) this.model.set(`${cf}/${key}`, value);
        return await this.state();
      }
      case "flush":
        await this.handle(c.arg("cf")).flush();
        return await this.state();
      case "wait":
        await this.db!.waitForCompactions();
        return await this.state();
      case "crash": {
        const copy = crashCopy(this.fs, "/db");
        await this.db!.close();
        this.fs = copy;
        this.db = await DB.open("/db", this.options());
        return `${this.lost()}\n${await this.state()}`;
      }
      case "reopen":
        await this.db!.close();
        this.db = await DB.open("/db", this.options());
        return `${this.lost()}\n${await this.state()}`;
      default:
        c.fail(`unknown command ${c.cmd}`);
    }
  }

  /** The acknowledged puts the database does not hold. */
  private lost(db: DB = this.db!): string {
    const lost: string[] = [];
    for (const [k, value] of this.model) {
      const [cf, key] = k.split("/") as [string, string];
      const got = (cf === "default" ? db : db.columnFamily(cf)).get(key);
      if (got === undefined || new TextDecoder().decode(got) !== value) lost.push(k);
    }
    return `lost: ${lost.length === 0 ? "none" : lost.join(" ")}`;
  }

  /** The state, and the check that a crash now would lose nothing. */
  private async state(): Promise<string> {
    return `${this.describe()}\n${await this.crashNow()}`;
  }

  /** The WALs, each family's recorded log number and memtables. */
  private describe(): string {
    const wals = this.fs
      .list("/db")
      .filter((n) => n.endsWith(".log"))
      .map((n) => Number(n.slice(0, -4)))
      .sort((a, b) => a - b);
    const { state } = recoverManifest(this.fs, "/db", icmp, false);
    const logs = new Map<string, number>([["default", state.logNumber ?? 0]]);
    for (const f of state.families.values()) logs.set(f.name, f.logNumber);
    const lines = [`wals: ${wals.map((n) => String(n).padStart(6, "0")).join(" ")}`];
    for (const cf of FAMILIES) {
      const h = this.handle(cf);
      const prop = (name: string) => h.getProperty(`shale.${name}`);
      lines.push(
        `${cf}: log ${logs.get(cf)} mem ${prop("num-entries-active-mem-table")} imm ${prop("num-immutable-mem-table")} L0 ${prop("num-files-at-level0")}`,
      );
    }
    return lines.join("\n");
  }

  /** A crash now (the directory as a killed process leaves it) loses nothing: checked. */
  private async crashNow(): Promise<string> {
    const copy = crashCopy(this.fs, "/db");
    const db = await DB.open("/db", { ...this.options(), fs: copy });
    try {
      return `crash now, ${this.lost(db)}`;
    } finally {
      await db.close();
    }
  }
}

const DIR = fileURLToPath(new URL("../../testdata/wal-retention", import.meta.url));

describe("testdata wal-retention", () => {
  for (const file of dataDrivenFiles(DIR)) {
    const name = `wal-retention/${file.slice(join(DIR, "x").length - 1)}`;
    it(name, async () => {
      const text = readFileSync(file, "utf8");
      const cases = parseDataDriven(text, name);
      const h = new Harness();
      const outputs: string[] = [];
      const mismatches = [];
      try {
        for (const c of cases) {
          const actual = normalizeOutput(await h.run(c));
          outputs.push(actual);
          if (actual !== c.expected)
            mismatches.push({ pos: c.pos, cmd: c.cmd, expected: c.expected, actual });
        }
      } finally {
        await h.db?.close().catch(() => undefined);
      }
      if (rewriteRequested()) {
        const next = rewriteDataDriven(text, cases, outputs);
        if (next !== text) writeFileSync(file, next);
        return;
      }
      if (mismatches.length > 0) throw new Error(formatMismatches(mismatches));
    });
  }
});
