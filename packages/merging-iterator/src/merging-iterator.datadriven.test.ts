/**
 * The merging iterator, data-driven (testdata/*.txt). Commands:
 *
 * - `define` — input: one child per line, its entries `<key>#<seq>,<KIND>:<value>` space
 *   separated (a line `-` is an empty child); output: the number of children and entries.
 * - `iter` — input: iterator ops (`first`, `last`, `next`, `prev`, `seek <ikey>`,
 *   `seek-for-prev <ikey>`, targets as internal keys or `<key>` alone = `<key>#max,RANGEDEL`,
 *   the first entry of a user key); output: one `<ikey>:<value>` or `.` line per op. One
 *   iterator per case, over the last definition.
 */
import {
  ArrayIterator,
  bytewiseComparator,
  type CompareFn,
  InternalKeyComparator,
  KIND_FOR_SEEK,
  MAX_SEQ,
  makeInternalKey,
} from "@shale/base";
import {
  dataDrivenTests,
  internalKeyText,
  parseInternalKeyText,
  parseKeyText,
  traceIterator,
} from "@shale/base/testing";
import { MergingIterator } from "./merging-iterator.js";

const icmp = new InternalKeyComparator(bytewiseComparator);
const compare: CompareFn = (a, b) => icmp.compare(a, b);
const enc = (s: string) => new TextEncoder().encode(s);

/** `a#3,SET` or `a` (= the seek key of user key a). */
function parseTarget(text: string): Uint8Array {
  return text.includes("#")
    ? parseInternalKeyText(text)
    : makeInternalKey(parseKeyText(text), MAX_SEQ, KIND_FOR_SEEK);
}

dataDrivenTests(new URL("../testdata", import.meta.url), () => {
  let children: { keys: Uint8Array[]; values: Uint8Array[] }[] = [];
  return (c) => {
    switch (c.cmd) {
      case "define": {
        children = [];
        let entries = 0;
        for (const raw of c.input.split("\n")) {
          const line = raw.trim();
          if (line === "") continue;
          const child = { keys: [] as Uint8Array[], values: [] as Uint8Array[] };
          if (line !== "-") {
            for (const word of line.split(/\s+/)) {
              const colon = word.indexOf(":");
              child.keys.push(parseInternalKeyText(colon < 0 ? word : word.slice(0, colon)));
              child.values.push(enc(colon < 0 ? "" : word.slice(colon + 1)));
            }
          }
          for (let i = 1; i < child.keys.length; i++) {
            if (compare(child.keys[i - 1]!, child.keys[i]!) >= 0)
              c.fail(`child ${children.length} is not sorted`);
          }
          entries += child.keys.length;
          children.push(child);
        }
        return `${children.length} children, ${entries} entries`;
      }
      case "iter": {
        const it = new MergingIterator(
          children.map((ch) => new ArrayIterator(ch.keys, ch.values, compare)),
          compare,
        );
        try {
          return traceIterator(it, c.input, parseTarget, internalKeyText);
        } finally {
          it.close();
        }
      }
      default:
        return c.fail("unknown command");
    }
  };
});
