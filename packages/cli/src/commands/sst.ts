/**
 * `shale sst <properties|layout|index|scan|check> <file>`: sst_dump for one table file
 * (shale's or RocksDB's block-based tables), read with @shale/sstable's TableReader.
 *
 * - properties: the properties block (sst_dump --show_properties)
 * - layout: the footer and the meta blocks the metaindex names, with their handles
 * - index: one line per data block: its separator key and `offset size`
 * - scan: every point entry `key @ seq : KIND => value` and range tombstone, in order
 * - check: re-reads every block verifying its checksum (TableReader.verifyChecksums), then
 *   every entry verifying key order and the entry count (sst_dump --command=check);
 *   exit 3 with the file and offset of the damage, 0 when the table is whole
 */
import { bytewiseComparator, InternalKeyComparator, reverseBytewiseComparator } from "@shale/base";
import { type TableReader, tableIndexEntries, tableLayout } from "@shale/sstable";
import type { Command } from "commander";
import { formatBytes, jsonBytes } from "../bytes-format.js";
import type { Act } from "../context.js";
import { type CommandContext, parseCount } from "../context.js";
import { CliError, ExitCode } from "../exit-codes.js";
import { internalKeyFields, internalKeyString } from "../internal-key-format.js";
import { openTable } from "../table-file.js";

interface SstOptions {
  comparator?: string;
}

function withTable<T>(file: string, options: SstOptions, body: (t: TableReader) => T): T {
  const comparator = options.comparator;
  if (comparator !== undefined && comparator !== "bytewise" && comparator !== "reverse") {
    throw new CliError(
      `--comparator must be bytewise or reverse (got ${JSON.stringify(comparator)})`,
      ExitCode.Usage,
    );
  }
  const table = openTable(file, comparator);
  try {
    return body(table);
  } finally {
    table.close();
  }
}

function properties(ctx: CommandContext, t: TableReader): void {
  const p = t.properties;
  const simple: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(p)) {
    if (value instanceof Uint8Array || name === "user") continue;
    simple[name] = value;
  }
  if (ctx.json) {
    ctx.jsonLine({
      file: t.fileName,
      fileSize: t.fileSize,
      properties: simple,
      ...(p.smallestKey !== undefined
        ? { smallestKey: internalKeyFields(ctx, p.smallestKey) }
        : {}),
      ...(p.largestKey !== undefined ? { largestKey: internalKeyFields(ctx, p.largestKey) } : {}),
      userProperties: p.user,
    });
    return;
  }
  ctx.line(`Table Properties (${t.fileName}, ${t.fileSize} bytes):`);
  ctx.line("------------------------------");
  for (const [name, value] of Object.entries(simple)) ctx.line(`  ${name}: ${String(value)}`);
  if (p.smallestKey !== undefined)
    ctx.line(`  smallestKey: ${internalKeyString(ctx, p.smallestKey)}`);
  if (p.largestKey !== undefined) ctx.line(`  largestKey: ${internalKeyString(ctx, p.largestKey)}`);
  for (const [name, value] of Object.entries(p.user)) ctx.line(`  ${name} (user): ${value}`);
}

function layout(ctx: CommandContext, t: TableReader): void {
  const l = tableLayout(t);
  if (ctx.json) {
    ctx.jsonLine({ file: t.fileName, fileSize: t.fileSize, ...l });
    return;
  }
  const context =
    l.baseContextChecksum !== 0
      ? `, base context checksum 0x${l.baseContextChecksum.toString(16).padStart(8, "0")}`
      : "";
  ctx.line(`Footer: format_version ${l.formatVersion}, checksum type ${l.checksumType}${context}`);
  ctx.line(`  metaindex: offset ${l.metaindex.offset} size ${l.metaindex.size}`);
  ctx.line(`  index:     offset ${l.index.offset} size ${l.index.size}`);
  ctx.line("Meta blocks:");
  for (const m of l.metaBlocks)
    ctx.line(`  ${m.name}: offset ${m.handle.offset} size ${m.handle.size}`);
}

function index(ctx: CommandContext, t: TableReader): void {
  const entries = tableIndexEntries(t);
  if (ctx.json) {
    ctx.jsonLine({
      file: t.fileName,
      blocks: entries.map((e) => ({ separator: internalKeyFields(ctx, e.separator), ...e.handle })),
    });
    return;
  }
  ctx.line(`Index (${entries.length} data blocks):`);
  entries.forEach((e, i) => {
    ctx.line(
      `  block ${i}: ${internalKeyString(ctx, e.separator)}  offset ${e.handle.offset} size ${e.handle.size}`,
    );
  });
}

function scan(ctx: CommandContext, t: TableReader, limit: number): void {
  const it = t.newIterator();
  try {
    let n = 0;
    for (it.seekToFirst(); it.valid() && n < limit; it.next(), n++) {
      const key = it.key();
      const value = it.value();
      if (ctx.json)
        ctx.jsonLine({
          ...internalKeyFields(ctx, key),
          ...jsonBytes("value", value, ctx.valueEncoding),
        });
      else ctx.line(`${internalKeyString(ctx, key)} => ${formatBytes(value, ctx.valueEncoding)}`);
    }
  } finally {
    it.close();
  }
  for (const r of t.rangeTombstones().tombstones()) {
    if (ctx.json) {
      ctx.jsonLine({
        rangeDeletion: true,
        ...jsonBytes("start", r.start, ctx.keyEncoding),
        ...jsonBytes("end", r.end, ctx.keyEncoding),
        seq: r.seq,
      });
    } else {
      ctx.line(
        `[${formatBytes(r.start, ctx.keyEncoding)}, ${formatBytes(r.end, ctx.keyEncoding)}) @ ${r.seq} : RANGEDEL`,
      );
    }
  }
}

function check(ctx: CommandContext, t: TableReader, comparator: string | undefined): void {
  const icmp = new InternalKeyComparator(
    comparator === "reverse" ? reverseBytewiseComparator : bytewiseComparator,
  );
  // Every block (metaindex, meta blocks, index, data) re-read and its checksum verified...
  const verified = t.verifyChecksums();
  // ... then every entry read in order: the keys must ascend, and add up to the properties.
  const it = t.newIterator({ verifyChecksums: true, fillCache: false });
  let n = 0;
  let previous: Uint8Array | undefined;
  try {
    for (it.seekToFirst(); it.valid(); it.next()) {
      const key = it.key();
      if (previous !== undefined && icmp.compare(previous, key) >= 0) {
        throw new CliError(
          `${t.fileName}: keys out of order at entry ${n}: ${internalKeyString(ctx, previous)} then ${internalKeyString(ctx, key)}`,
          ExitCode.Corruption,
        );
      }
      previous = key.slice();
      n++;
    }
  } finally {
    it.close();
  }
  if (n !== t.properties.numEntries) {
    throw new CliError(
      `${t.fileName}: ${n} entries read, the properties say ${t.properties.numEntries}`,
      ExitCode.Corruption,
    );
  }
  if (ctx.json) {
    ctx.jsonLine({
      ok: true,
      file: t.fileName,
      entries: n,
      dataBlocks: verified.dataBlocks,
      blocks: verified.blocks,
    });
  } else {
    ctx.line(
      `OK ${t.fileName}: ${n} entries in ${verified.dataBlocks} data blocks; ${verified.blocks} blocks, checksums verified`,
    );
  }
}

export function registerSst(program: Command, act: Act): void {
  const sst = program
    .command("sst")
    .description("inspect a table file (sst_dump): properties, layout, index, scan, check");
  const sub = (name: string, description: string) =>
    sst
      .command(name)
      .description(description)
      .argument("<file>", "a .sst file")
      .option("--comparator <name>", "the table's key order: bytewise (default) or reverse");
  sub("properties", "print the table's properties").action(
    act<SstOptions>((ctx, [file], options) =>
      withTable(file!, options, (t) => void properties(ctx, t)),
    ),
  );
  sub("layout", "print the footer and the meta blocks").action(
    act<SstOptions>((ctx, [file], options) =>
      withTable(file!, options, (t) => void layout(ctx, t)),
    ),
  );
  sub("index", "print the index: one line per data block").action(
    act<SstOptions>((ctx, [file], options) => withTable(file!, options, (t) => void index(ctx, t))),
  );
  sub("scan", "print every entry with its sequence number and kind")
    .option("--limit <n>", "at most n point entries")
    .action(
      act<SstOptions & { limit?: string }>((ctx, [file], options) => {
        const limit =
          options.limit === undefined
            ? Number.POSITIVE_INFINITY
            : parseCount(options.limit, "--limit");
        return withTable(file!, options, (t) => void scan(ctx, t, limit));
      }),
    );
  sub("check", "read every block, verify checksums and key order (exit 3 on damage)").action(
    act<SstOptions>((ctx, [file], options) =>
      withTable(file!, options, (t) => void check(ctx, t, options.comparator)),
    ),
  );
}
