/**
 * Tables, data-driven (testdata/table/*.txt): a table built from text, read back. Commands:
 *
 * - `build [block-size=<bytes>] [restart-interval=<n>]` — input: entries
 *   `<key>#<seq>,<KIND>:<value>` (sorted) and `rangedel:<start>-<end>#<seq>`, space or line
 *   separated; output: the entry and data-block counts from the table's properties.
 * - `iter` — input: iterator ops (targets: internal keys, or `<key>` = `<key>#max,RANGEDEL`);
 *   output: one line per op.
 * - `tombstones` — the table's fragmented range tombstones.
 */
import { KIND_FOR_SEEK, MAX_SEQ, makeInternalKey } from "@shale/base";
import {
  dataDrivenTests,
  internalKeyText,
  parseInternalKeyText,
  parseKeyText,
  traceIterator,
} from "@shale/base/testing";
import { buildTable, openTable } from "./table.test-support.js";
import type { TableReader } from "./table-reader.js";

const enc = (s: string) => new TextEncoder().encode(s);

function parseTarget(text: string): Uint8Array {
  return text.includes("#")
    ? parseInternalKeyText(text)
    : makeInternalKey(parseKeyText(text), MAX_SEQ, KIND_FOR_SEEK);
}

dataDrivenTests(new URL("../../testdata/table", import.meta.url), () => {
  let reader: TableReader | undefined;
  return (c) => {
    switch (c.cmd) {
      case "build": {
        reader?.close();
        const keys: Uint8Array[] = [];
        const values: Uint8Array[] = [];
        const tombstones: { start: Uint8Array; end: Uint8Array; seq: number }[] = [];
        for (const word of c.input.split(/\s+/).filter((w) => w !== "")) {
          const rd = /^rangedel:(.+)-(.+)#(\d+)$/.exec(word);
          if (rd !== null) {
            tombstones.push({
              start: parseKeyText(rd[1]!),
              end: parseKeyText(rd[2]!),
              seq: Number(rd[3]),
            });
            continue;
          }
          const colon = word.indexOf(":");
          keys.push(parseInternalKeyText(colon < 0 ? word : word.slice(0, colon)));
          values.push(enc(colon < 0 ? "" : word.slice(colon + 1)));
        }
        const table = buildTable(
          keys,
          values,
          {
            blockSize: c.numArg("block-size", 4096),
            blockRestartInterval: c.numArg("restart-interval", 16),
          },
          tombstones,
        );
        reader = openTable(table);
        const p = reader.properties;
        return `${p.numEntries} entries, ${p.numDataBlocks} data blocks, ${p.numRangeDeletions} range deletions`;
      }
      case "iter": {
        if (reader === undefined) return c.fail("no table built yet");
        const it = reader.newIterator();
        try {
          return traceIterator(it, c.input, parseTarget, internalKeyText);
        } finally {
          it.close();
        }
      }
      case "tombstones":
        if (reader === undefined) return c.fail("no table built yet");
        return reader.rangeTombstones().toString() || "(none)";
      default:
        return c.fail("unknown command");
    }
  };
});
