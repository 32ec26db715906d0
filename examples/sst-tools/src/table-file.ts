/**
 * Static sorted tables (the SstFileWriter use of @shale/sstable): build one from a CSV
 * (`key,value`, a header line `key,value` is skipped, fields may be "quoted") or JSON-lines
 * (`{"key": ..., "value": ...}`, a non-string value is stored as its JSON) file, then serve
 * point and range reads from it. Entries are sorted by key bytes; for a key given twice the
 * last line wins. Every entry is written at sequence number 0, as RocksDB's SstFileWriter does.
 */
import {
  ArrayIterator,
  bytewiseComparator,
  compareBytes,
  type FileSystem,
  InternalKeyComparator,
  LookupState,
  makeInternalKey,
  ValueKind,
} from "@shale/base";
import { UserKeyIterator } from "@shale/merging-iterator";
import { flushMemTable, newBlockCache, type TableProperties, TableReader } from "@shale/sstable";

const enc = new TextEncoder();
const icmp = new InternalKeyComparator(bytewiseComparator);

/** Parses one CSV field list: `a,b` or `"a, with comma","b ""quoted"""`. */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  const re = /\s*(?:"((?:[^"]|"")*)"|([^,]*))\s*(?:,|$)/gy;
  for (let m = re.exec(line); m !== null && m.index < line.length; m = re.exec(line)) {
    fields.push(m[1] !== undefined ? m[1].replaceAll('""', '"') : m[2]!.trim());
  }
  return fields;
}

/** The entries of a .csv or .jsonl text, as [key, value] strings, in file order. */
export function parseEntries(text: string, format: "csv" | "jsonl"): [string, string][] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "");
  if (format === "jsonl") {
    return lines.map((l, i) => {
      const o = JSON.parse(l);
      if (typeof o?.key !== "string") throw new Error(`line ${i + 1}: "key" must be a string`);
      return [o.key, typeof o.value === "string" ? o.value : JSON.stringify(o.value)];
    });
  }
  if (lines[0]?.replaceAll(" ", "") === "key,value") lines.shift();
  return lines.map((l, i) => {
    const [key, value, ...rest] = csvFields(l);
    if (key === undefined || value === undefined || rest.length > 0) {
      throw new Error(`line ${i + 1}: expected key,value`);
    }
    return [key, value];
  });
}

/** Writes `entries` into a table at `path` (synced and closed); returns its properties. */
export function buildTable(
  fs: FileSystem,
  path: string,
  entries: [string, string][],
): TableProperties {
  const latest = new Map(entries.map(([k, v]) => [k, v])); // the last line for a key wins
  const sorted = [...latest].map(([k, v]) => [enc.encode(k), enc.encode(v)] as const);
  sorted.sort((a, b) => compareBytes(a[0], b[0]));
  const keys = sorted.map(([k]) => makeInternalKey(k, 0, ValueKind.Value));
  const iterator = () =>
    new ArrayIterator(
      keys,
      sorted.map(([, v]) => v),
      (a, b) => icmp.compare(a, b),
    );
  return flushMemTable(
    { newIterator: iterator, rangeTombstones: () => [] },
    fs.openWritable(path),
    {
      bitsPerKey: 10,
    },
  );
}

/** Point and range reads over one table, through a block cache. */
export class StaticTable {
  private readonly reader: TableReader;

  constructor(fs: FileSystem, path: string) {
    const options = { fileName: path, blockCache: newBlockCache(4 << 20) };
    this.reader = TableReader.open(fs.openRandomAccess(path), options);
  }

  get properties(): TableProperties {
    return this.reader.properties;
  }

  /** False when the Bloom filter proves the key absent (no data block is read). */
  mayContain(key: Uint8Array): boolean {
    return this.reader.mayContain(key);
  }

  get(key: Uint8Array): Uint8Array | undefined {
    const r = this.reader.get(key);
    return r.state === LookupState.Found ? r.value!.slice() : undefined;
  }

  /** Entries with from <= key < to (either bound optional), as copies. */
  range(from?: Uint8Array, to?: Uint8Array): [Uint8Array, Uint8Array][] {
    const it = new UserKeyIterator(this.reader.newIterator(), {
      ...(from !== undefined && { lowerBound: from }),
      ...(to !== undefined && { upperBound: to }),
    });
    return [...it];
  }

  close(): void {
    this.reader.close();
  }
}
