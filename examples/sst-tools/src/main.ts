/**
 * sst-tools: `build <input.csv|input.jsonl> <out.sst>`, `get <table.sst> <key>`,
 * `scan <table.sst> [from] [to]`; with no command, a demo over data/ in a temporary directory.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NodeFileSystem } from "@shale/base";
import { buildTable, parseEntries, StaticTable } from "./table-file.js";

const enc = new TextEncoder();
const dec = new TextDecoder();
const fs = new NodeFileSystem();
const format = (path: string) => (path.endsWith(".jsonl") ? "jsonl" : "csv");
const build = (input: string, out: string) => {
  const p = buildTable(fs, out, parseEntries(readFileSync(input, "utf8"), format(input)));
  return `${p.numEntries} entries in ${p.numDataBlocks} data blocks, filter ${p.filterPolicy}`;
};
const line = ([k, v]: [Uint8Array, Uint8Array]) => `${dec.decode(k)}\t${dec.decode(v)}`;

const [command, ...args] = process.argv.slice(2);
if (command === "build") console.log(build(args[0]!, args[1]!));
else if (command === "get" || command === "scan") {
  const table = new StaticTable(fs, args[0]!);
  if (command === "get")
    console.log(dec.decode(table.get(enc.encode(args[1]!)) ?? enc.encode("(not found)")));
  else
    for (const e of table.range(...args.slice(1).map((a) => enc.encode(a)))) console.log(line(e));
  table.close();
} else {
  const dir = mkdtempSync(join(tmpdir(), "sst-tools-"));
  const data = join(import.meta.dirname, "..", "data");
  for (const input of ["countries.csv", "capitals.jsonl"]) {
    console.log(`build ${input}:`, build(join(data, input), join(dir, `${input}.sst`)));
  }
  const countries = new StaticTable(fs, join(dir, "countries.csv.sst"));
  const capitals = new StaticTable(fs, join(dir, "capitals.jsonl.sst"));
  console.log("get cz:", dec.decode(countries.get(enc.encode("cz"))));
  console.log(
    "get xx:",
    countries.get(enc.encode("xx")) ?? "(not found)",
    "- filter says may contain:",
    countries.mayContain(enc.encode("xx")),
  );
  console.log(
    "scan [d, g):",
    countries.range(enc.encode("d"), enc.encode("g")).map(line).join(" | "),
  );
  console.log("capital of fr:", dec.decode(capitals.get(enc.encode("fr"))));
  console.log("capital of nl:", dec.decode(capitals.get(enc.encode("nl"))));
  console.log(
    "capitals, all:",
    capitals
      .range()
      .map(([k]) => dec.decode(k))
      .join(" "),
  );
  countries.close();
  capitals.close();
  rmSync(dir, { recursive: true, force: true });
}
