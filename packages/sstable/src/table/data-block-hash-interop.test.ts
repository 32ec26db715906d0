/**
 * RocksDB 7.8.3's sst_dump reads tables shale writes with the data block hash index
 * (`--command=check`, `--command=scan --verify_checksum`), and its entries come out as
 * shale wrote them. Runs when `sst_dump` (rocksdb-tools) is on the PATH; otherwise the tests
 * are skipped with the reason printed. (The other way, tables RocksDB writes with the hash
 * index read in shale, is in @shale/db's interop/data-block-index.test.ts, through ldb.)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toBytes, ValueKind } from "@shale/base";
import { afterAll, describe, expect, it } from "vitest";
import { buildTable, ikey, tableLayout } from "./table.test-support.js";

const found = spawnSync("sst_dump", ["--help"], { encoding: "utf8" }).error === undefined;
if (!found) {
  console.log(
    "data-block-hash-interop.test.ts skipped: sst_dump (rocksdb-tools) is not on the PATH",
  );
}

const dir = mkdtempSync(join(tmpdir(), "shale-hash-interop-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!found)("sst_dump reads shale's tables with the data block hash index", () => {
  it("checks and scans every entry, checksums verified", () => {
    const keys: Uint8Array[] = [];
    const values: Uint8Array[] = [];
    for (let i = 0; i < 3000; i++) {
      const kind = i % 9 === 4 ? ValueKind.Deletion : ValueKind.Value;
      keys.push(ikey(`key${String(i).padStart(6, "0")}`, 10_000 - i, kind));
      values.push(kind === ValueKind.Deletion ? new Uint8Array(0) : toBytes(`value-${i}`));
    }
    const t = buildTable(keys, values, {
      blockSize: 1024,
      compression: "none",
      dataBlockIndexType: "binaryAndHash",
    });
    const bytes = t.fs.readFile(t.path);
    const blocks = tableLayout(t).data;
    expect(blocks.length).toBeGreaterThan(10);
    for (const h of blocks) expect(bytes[h.offset + h.size - 1]! & 0x80).toBe(0x80);
    const path = join(dir, "000009.sst");
    writeFileSync(path, bytes);
    const check = spawnSync("sst_dump", [`--file=${path}`, "--command=check"], {
      encoding: "utf8",
    });
    expect(check.status, check.stderr + check.stdout).toBe(0);
    expect(check.stdout).not.toMatch(/Corruption|error/i);
    const scan = spawnSync(
      "sst_dump",
      [`--file=${path}`, "--command=scan", "--verify_checksum", "--output_hex"],
      { encoding: "utf8", maxBuffer: 64 << 20 },
    );
    expect(scan.status, scan.stderr).toBe(0);
    const lines = scan.stdout.split("\n").filter((l) => l.includes("=>"));
    expect(lines.length).toBe(keys.length);
    const hex = (b: Uint8Array) => Buffer.from(b).toString("hex").toUpperCase();
    // 'key' seq:N, type:T => value (hex)
    expect(lines[1]).toContain(
      `'${hex(toBytes("key000001"))}' seq:9999, type:1 => ${hex(values[1]!)}`,
    );
    expect(lines[4]).toContain(`'${hex(toBytes("key000004"))}' seq:9996, type:0 =>`);
  });
});
