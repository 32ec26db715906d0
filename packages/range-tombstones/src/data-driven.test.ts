/**
 * Data-driven cases in Pebble's style: each case is `command [args]`, its input lines, `----`,
 * and the expected output. Commands:
 *
 * - `build` — input: tombstones `start-end@seq`, space separated; output: `toString()`.
 *   Every later command of the same group uses the last list built.
 * - `get` — input: `key@snapshot` probes (`key` alone = MAX_SEQ); output: one
 *   `key@snapshot: seq` line per probe (`maxCoveringSeq`).
 * - `iter [snapshot=N]` — input: one op per line (`first`, `last`, `next`, `prev`,
 *   `seek k`, `seek-for-prev k`); output: one line per op: `start-end@seq` or `.` (invalid).
 * - `compact snapshots=a,b,...` — output: `toString()` of `forCompaction(snapshots)`.
 *
 * The key `_` stands for the empty key.
 */
import { MAX_SEQ, type RangeTombstone, toBytes } from "@shale/base";
import { describe, expect, it } from "vitest";
import { FragmentedRangeTombstoneList } from "./index.js";

const CASES = `
# The drawing at the top of fragmenter.ts.
build
a-e@10 c-g@20
----
a-c:{10} c-e:{20,10} e-g:{20}

# Input order does not matter.
build
c-g@20 a-e@10
----
a-c:{10} c-e:{20,10} e-g:{20}

get
_ a a@9 b@10 c c@19 c@15 c@9 dz@20 e e@19 f@20 g z
----
_@max: 0
a@max: 10
a@9: 0
b@10: 10
c@max: 20
c@19: 10
c@15: 10
c@9: 0
dz@20: 20
e@max: 20
e@19: 0
f@20: 20
g@max: 0
z@max: 0

# A gap produces no fragment.
build
a-b@5 c-d@6
----
a-b:{5} c-d:{6}

get
a b bz c d
----
a@max: 5
b@max: 0
bz@max: 0
c@max: 6
d@max: 0

# Contiguous tombstones stay separate fragments, as in RocksDB.
build
a-c@5 c-e@5
----
a-c:{5} c-e:{5}

# RocksDB's DeleteRange-Implementation example.
build
c-d@4 g-h@7 a-z@10
----
a-c:{10} c-d:{10,4} d-g:{10} g-h:{10,7} h-z:{10}

get
c@9 c@3 cc@4 g@7 g@6 gz@10 h@9
----
c@9: 4
c@3: 0
cc@4: 4
g@7: 7
g@6: 0
gz@10: 10
h@9: 0

# Empty tombstones are ignored.
build
e-a@3 c-c@4
----

build
a-c@1 d-b@9 x-x@2
----
a-c:{1}

# Duplicates appear once in a stack.
build
a-c@5 a-c@5 b-c@5
----
a-b:{5} b-c:{5}

build
a-c@3 a-c@9 a-c@6 a-c@9
----
a-c:{9,6,3}

# Repeated start key, different end keys.
build
a-e@3 a-g@7 a-c@8
----
a-c:{8,7,3} c-e:{7,3} e-g:{7}

# Repeated end key, different start keys.
build
a-g@1 c-g@2 e-g@3
----
a-c:{1} c-e:{2,1} e-g:{3,2,1}

# RocksDB's OverlapAndRepeatedStartKey.
build
a-e@10 c-g@8 c-i@6 j-n@4 j-l@2
----
a-c:{10} c-e:{10,8,6} e-g:{8,6} g-i:{6} j-l:{4,2} l-n:{4}

# A newer tombstone below an older one; seq 0.
build
a-z@1 m-n@0 _-a@7
----
-a:{7} a-m:{1} m-n:{1,0} n-z:{1}

get
_ m@0 m@1
----
_@max: 7
m@0: 0
m@1: 1

# Iteration at a snapshot (the drawing in fragment-iterator.ts).
build
a-c@10 c-e@20 c-e@10 g-k@5
----
a-c:{10} c-e:{20,10} g-k:{5}

iter snapshot=15
first
next
next
next
seek d
seek e
seek k
seek-for-prev f
seek-for-prev 0
seek-for-prev z
prev
prev
prev
----
a-c@10
c-e@10
g-k@5
.
c-e@10
g-k@5
.
c-e@10
.
g-k@5
c-e@10
a-c@10
.

iter snapshot=8
first
last
seek a
seek-for-prev f
seek-for-prev g
prev
----
g-k@5
g-k@5
g-k@5
.
g-k@5
.

iter
first
next
last
seek c
----
a-c@10
c-e@20
g-k@5
c-e@20

iter snapshot=4
first
last
seek a
seek-for-prev z
----
.
.
.
.

# Compaction keeps the newest seq of each snapshot stripe (snapshot-stripes.ts).
build
a-e@4 a-e@3 a-e@11 a-e@9 a-e@6 a-e@20 a-e@15 e-g@2
----
a-e:{20,15,11,9,6,4,3} e-g:{2}

compact snapshots=5,12
----
a-e:{20,11,4} e-g:{2}

compact snapshots=
----
a-e:{20} e-g:{2}

compact snapshots=3
----
a-e:{20,3} e-g:{2}

compact snapshots=0
----
a-e:{20} e-g:{2}

compact snapshots=11
----
a-e:{20,11} e-g:{2}

compact snapshots=4,4,100
----
a-e:{20,4} e-g:{2}

compact snapshots=1,2,3,4,5,6,9,11,15,20
----
a-e:{20,15,11,9,6,4,3} e-g:{2}
`;

interface Case {
  line: number;
  command: string;
  args: Map<string, string>;
  input: string[];
  expected: string;
}

function parseCases(text: string): Case[] {
  const lines = text.split("\n");
  const cases: Case[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!.trim();
    if (line === "" || line.startsWith("#")) {
      i++;
      continue;
    }
    const [command, ...rest] = line.split(/\s+/);
    const args = new Map(rest.map((a) => a.split("=") as [string, string]));
    const start = i++;
    const input: string[] = [];
    while (lines[i]!.trim() !== "----") input.push(lines[i++]!.trim());
    i++;
    const out: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== "") out.push(lines[i++]!.trim());
    cases.push({ line: start, command: command!, args, input, expected: out.join("\n") });
  }
  return cases;
}

const key = (s: string): Uint8Array => toBytes(s === "_" ? "" : s);
const show = (k: Uint8Array): string => (k.length === 0 ? "_" : new TextDecoder().decode(k));

function parseTombstones(words: string[]): RangeTombstone[] {
  return words.map((w) => {
    const m = /^([^-@]*)-([^-@]*)@(\d+)$/.exec(w);
    if (m === null) throw new Error(`bad tombstone ${w}`);
    return { start: key(m[1]!), end: key(m[2]!), seq: Number(m[3]) };
  });
}

function run(c: Case, list: FragmentedRangeTombstoneList | undefined): string {
  const words = c.input
    .join(" ")
    .split(/\s+/)
    .filter((w) => w !== "");
  if (list === undefined && c.command !== "build") throw new Error("no list built yet");
  switch (c.command) {
    case "get":
      return words
        .map((w) => {
          const [k, s] = w.split("@");
          const snapshot = s === undefined ? MAX_SEQ : Number(s);
          return `${k}@${s ?? "max"}: ${list!.maxCoveringSeq(key(k!), snapshot)}`;
        })
        .join("\n");
    case "iter": {
      const snapshot = c.args.has("snapshot") ? Number(c.args.get("snapshot")) : undefined;
      const it = snapshot === undefined ? list!.newIterator() : list!.newIterator(snapshot);
      return c.input
        .map((op) => {
          const [verb, arg] = op.split(" ");
          if (verb === "first") it.seekToFirst();
          else if (verb === "last") it.seekToLast();
          else if (verb === "next") it.next();
          else if (verb === "prev") it.prev();
          else if (verb === "seek") it.seek(key(arg!));
          else if (verb === "seek-for-prev") it.seekForPrev(key(arg!));
          else throw new Error(`bad op ${op}`);
          return it.valid() ? `${show(it.start())}-${show(it.end())}@${it.seq()}` : ".";
        })
        .join("\n");
    }
    case "compact": {
      const text = c.args.get("snapshots") ?? "";
      const snapshots = text === "" ? [] : text.split(",").map(Number);
      return list!.forCompaction(snapshots).toString();
    }
    default:
      throw new Error(`bad command ${c.command}`);
  }
}

describe("data-driven cases", () => {
  const cases = parseCases(CASES);
  let list: FragmentedRangeTombstoneList | undefined;
  // Cases run in order; `build` replaces the list the following cases use.
  for (const c of cases) {
    if (c.command === "build") {
      const tombstones = parseTombstones(
        c.input
          .join(" ")
          .split(/\s+/)
          .filter((w) => w !== ""),
      );
      it(`line ${c.line}: build ${c.input.join(" ")}`, () => {
        const built = new FragmentedRangeTombstoneList(tombstones);
        expect(built.toString()).toBe(c.expected);
        expect(built.numTombstones).toBe(tombstones.length);
        expect(built.isEmpty).toBe(c.expected === "");
      });
      list = new FragmentedRangeTombstoneList(tombstones);
    } else {
      const current = list;
      it(`line ${c.line}: ${c.command} ${[...c.args].map(([k, v]) => `${k}=${v}`).join(" ")}`, () => {
        expect(run(c, current)).toBe(c.expected);
      });
    }
  }

  it("the table has every command", () => {
    const commands = new Set(cases.map((c) => c.command));
    expect([...commands].sort()).toEqual(["build", "compact", "get", "iter"]);
    expect(cases.length).toBeGreaterThan(25);
  });
});
