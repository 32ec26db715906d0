/**
 * The memtable, data-driven (testdata/*.txt). Commands:
 *
 * - `define [bytewise=false] [hash-index=false]` — input: entries `<key>#<seq>,<KIND>:<value>`
 *   space separated (several lines allowed; `rangedel:<start>-<end>#<seq>` for a range
 *   tombstone), added in the order given; output: entry and tombstone counts. The memtable
 *   uses the bytewise comparator unless `bytewise=false` (then a comparator with the same
 *   order but another name, which takes the slower, non-bytewise paths).
 * - `iter` — input: iterator ops (`first`, `last`, `next`, `prev`, `seek <ikey>`,
 *   `seek-for-prev <ikey>`; a target without `#` is `<key>#max,RANGEDEL`); output: one line
 *   per op.
 * - `get` — input: probes `<key>@<snapshot>` (`<key>` alone: the latest); output per probe:
 *   the state, the seq, the value or operands, and the covering tombstone seq.
 */
import {
  bytewiseComparator,
  type Comparator,
  compareBytes,
  KIND_FOR_SEEK,
  LookupResult,
  LookupState,
  MAX_SEQ,
  makeInternalKey,
  seqOf,
  ValueKind,
} from "@shale/base";
import {
  dataDrivenTests,
  decodeUtf8,
  internalKeyText,
  parseInternalKeyText,
  parseKeyText,
  traceIterator,
} from "@shale/base/testing";
import { MemTable } from "./index.js";

const enc = (s: string) => new TextEncoder().encode(s);
const STATES = ["NotFound", "Found", "Deleted", "Merging"];

/** Bytewise order under another name: the memtable's generic-comparator paths. */
const sameOrder: Comparator = {
  name: "test.SameOrderAsBytewise",
  compare: compareBytes,
  findShortestSeparator: (a) => a,
  findShortSuccessor: (a) => a,
};

function parseTarget(text: string): Uint8Array {
  return text.includes("#")
    ? parseInternalKeyText(text)
    : makeInternalKey(parseKeyText(text), MAX_SEQ, KIND_FOR_SEEK);
}

dataDrivenTests(new URL("../testdata", import.meta.url), () => {
  let mem = new MemTable();
  return (c) => {
    switch (c.cmd) {
      case "define": {
        const comparator = c.arg("bytewise", "true") === "false" ? sameOrder : bytewiseComparator;
        mem = new MemTable({ comparator, hashIndex: c.arg("hash-index", "true") !== "false" });
        for (const word of c.input.split(/\s+/).filter((w) => w !== "")) {
          const rd = /^rangedel:(.+)-(.+)#(\d+)$/.exec(word);
          if (rd !== null) {
            mem.add(
              Number(rd[3]),
              ValueKind.RangeDeletion,
              parseKeyText(rd[1]!),
              parseKeyText(rd[2]!),
            );
            continue;
          }
          const colon = word.indexOf(":");
          const ikey = parseInternalKeyText(colon < 0 ? word : word.slice(0, colon));
          const t = ikey.length - 8;
          const kind = ikey[t]! as ValueKind;
          const seq = seqOf(ikey);
          mem.add(seq, kind, ikey.subarray(0, t), enc(colon < 0 ? "" : word.slice(colon + 1)));
        }
        return `${mem.numEntries} entries, ${mem.numRangeTombstones} range tombstones`;
      }
      case "iter": {
        const it = mem.newIterator();
        try {
          return traceIterator(it, c.input, parseTarget, internalKeyText);
        } finally {
          it.close();
        }
      }
      case "get": {
        const result = new LookupResult();
        return c.input
          .split(/\s+/)
          .filter((w) => w !== "")
          .map((probe) => {
            const [k, s] = probe.split("@");
            result.reset();
            mem.get(parseKeyText(k!), s === undefined ? MAX_SEQ : Number(s), result);
            const parts = [`${probe}: ${STATES[result.state]}`];
            if (result.state === LookupState.Found || result.state === LookupState.Deleted) {
              parts.push(`seq=${result.seq}`);
            }
            if (result.value !== undefined) parts.push(`value=${decodeUtf8(result.value)}`);
            if (result.operands.length > 0) {
              parts.push(`operands=(${result.operands.map(decodeUtf8).join(", ")})`);
            }
            if (result.maxCoveringSeq > 0) parts.push(`covered-by=${result.maxCoveringSeq}`);
            return parts.join(" ");
          })
          .join("\n");
      }
      default:
        return c.fail("unknown command");
    }
  };
});
