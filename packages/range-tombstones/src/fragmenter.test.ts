/**
 * The fragmenter, data-driven (testdata/fragmenter/*.txt, Pebble's format). Commands:
 *
 * - `build` — input: tombstones `start-end@seq`, space separated; output: `toString()`.
 *   Every later command of the same file uses the last list built.
 * - `get` — input: `key@snapshot` probes (`key` alone = MAX_SEQ); output: one
 *   `key@snapshot: seq` line per probe (`maxCoveringSeq`).
 * - `iter [snapshot=N]` — input: one op per line (`first`, `last`, `next`, `prev`,
 *   `seek k`, `seek-for-prev k`); output: one line per op: `start-end@seq` or `.` (invalid).
 * - `compact snapshots=(a, b, ...)` — output: `toString()` of `forCompaction(snapshots)`.
 *
 * The key `_` stands for the empty key.
 */
import { MAX_SEQ, type RangeTombstone } from "@shale/base";
import { dataDrivenTests, keyText, parseKeyText } from "@shale/base/testing";
import { FragmentedRangeTombstoneList } from "./index.js";

function parseTombstones(words: string[]): RangeTombstone[] {
  return words.map((w) => {
    const m = /^([^-@]*)-([^-@]*)@(\d+)$/.exec(w);
    if (m === null) throw new Error(`bad tombstone ${w}`);
    return { start: parseKeyText(m[1]!), end: parseKeyText(m[2]!), seq: Number(m[3]) };
  });
}

const words = (input: string): string[] => input.split(/\s+/).filter((w) => w !== "");

dataDrivenTests(new URL("../testdata/fragmenter", import.meta.url), () => {
  let list: FragmentedRangeTombstoneList | undefined;
  return (c) => {
    if (c.cmd === "build") {
      const tombstones = parseTombstones(words(c.input));
      list = new FragmentedRangeTombstoneList(tombstones);
      if (list.numTombstones !== tombstones.length) c.fail("numTombstones differs from the input");
      const text = list.toString();
      if (list.isEmpty !== (text === "")) c.fail("isEmpty disagrees with toString");
      return text;
    }
    if (list === undefined) return c.fail("no list built yet");
    const built = list;
    switch (c.cmd) {
      case "get":
        return words(c.input)
          .map((w) => {
            const [k, s] = w.split("@");
            const snapshot = s === undefined ? MAX_SEQ : Number(s);
            return `${k}@${s ?? "max"}: ${built.maxCoveringSeq(parseKeyText(k!), snapshot)}`;
          })
          .join("\n");
      case "iter": {
        const it = c.hasArg("snapshot")
          ? built.newIterator(c.numArg("snapshot"))
          : built.newIterator();
        return c.input
          .split("\n")
          .map((l) => l.trim())
          .filter((l) => l !== "")
          .map((op) => {
            const [verb, arg] = op.split(" ");
            if (verb === "first") it.seekToFirst();
            else if (verb === "last") it.seekToLast();
            else if (verb === "next") it.next();
            else if (verb === "prev") it.prev();
            else if (verb === "seek") it.seek(parseKeyText(arg!));
            else if (verb === "seek-for-prev") it.seekForPrev(parseKeyText(arg!));
            else c.fail(`bad op ${op}`);
            return it.valid() ? `${keyText(it.start())}-${keyText(it.end())}@${it.seq()}` : ".";
          })
          .join("\n");
      }
      case "compact":
        return built.forCompaction(c.argValues("snapshots").map(Number)).toString();
      default:
        return c.fail("unknown command");
    }
  };
});
