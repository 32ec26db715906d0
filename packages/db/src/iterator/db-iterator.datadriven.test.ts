/**
 * The DB iterator, data-driven (testdata/db-iterator/*.txt): traces of seeks and moves over
 * sources built from writes. Commands:
 *
 * - `define [kinds=(mem, table, ...)]` — input: one source per line, NEWEST first, its writes
 *   space separated: `put:<key>=<value>@<seq>`, `del:<key>@<seq>`, `sdel:<key>@<seq>`,
 *   `merge:<key>=<operand>@<seq>`, `rangedel:<start>-<end>@<seq>`. `kinds` says which
 *   sources are memtables and which tables (default: all memtables). Output: the number of
 *   sources and writes.
 * - `iter [snapshot=<seq>] [lower=<key>] [upper=<key>] [merge=none]` — input: iterator ops
 *   (`first`, `last`, `next`, `prev`, `seek <key>`, `seek-for-prev <key>`); output: one
 *   `<key>:<value>`, `.` (not valid) or `error: ...` line per op. The merge operator is
 *   stringappend (`,`) unless `merge=none`.
 */
import { bytewiseComparator, MAX_SEQ } from "@shale/base";
import { dataDrivenTests, keyText, parseKeyText, traceIterator } from "@shale/base/testing";
import { stringAppendOperator } from "../core/merge-operator.js";
import { newDBIterator } from "./index.js";
import {
  type BuiltSources,
  buildSources,
  type SourceKind,
  type Write,
  type WriteKind,
} from "./sources.test-support.js";

const enc = (s: string) => new TextEncoder().encode(s);

function parseWrite(word: string): Write {
  const m = /^(put|del|sdel|merge|rangedel):(.*)@(\d+)$/.exec(word);
  if (m === null) throw new TypeError(`bad write ${word}: want kind:key[=value]@seq`);
  const kind = m[1] as WriteKind;
  const seq = Number(m[3]);
  const body = m[2]!;
  if (kind === "rangedel") {
    const [start, end] = body.split("-");
    return {
      kind,
      key: parseKeyText(start!),
      end: parseKeyText(end!),
      value: new Uint8Array(0),
      seq,
    };
  }
  const eq = body.indexOf("=");
  const key = parseKeyText(eq < 0 ? body : body.slice(0, eq));
  return { kind, key, value: enc(eq < 0 ? "" : body.slice(eq + 1)), seq };
}

dataDrivenTests(new URL("../../testdata/db-iterator", import.meta.url), () => {
  let groups: Write[][] = [];
  let kinds: SourceKind[] = [];
  return (c) => {
    switch (c.cmd) {
      case "define": {
        groups = c.input
          .split("\n")
          .map((l) => l.trim())
          .filter((l) => l !== "" && !l.startsWith("#"))
          .map((l) => (l === "-" ? [] : l.split(/\s+/).map(parseWrite)));
        const given = c.argValues("kinds") as SourceKind[];
        kinds = groups.map((_, i) => given[i] ?? "mem");
        const writes = groups.reduce((n, g) => n + g.length, 0);
        return `${groups.length} sources (${kinds.join(", ")}), ${writes} writes`;
      }
      case "iter": {
        const built: BuiltSources = buildSources(groups, kinds, bytewiseComparator);
        const it = newDBIterator({
          children: built.children,
          rangeTombstones: built.rangeTombstones,
          childMaxSeqs: built.childMaxSeqs,
          comparator: bytewiseComparator,
          mergeOperator:
            c.arg("merge", "stringappend") === "none" ? undefined : stringAppendOperator(),
          snapshotSeq: c.numArg("snapshot", MAX_SEQ),
          lowerBound: c.hasArg("lower") ? parseKeyText(c.arg("lower")) : undefined,
          upperBound: c.hasArg("upper") ? parseKeyText(c.arg("upper")) : undefined,
        });
        try {
          return traceIterator(it, c.input, parseKeyText, keyText);
        } finally {
          it.close();
          for (const r of built.readers) r.close();
        }
      }
      default:
        return c.fail("unknown command");
    }
  };
});
