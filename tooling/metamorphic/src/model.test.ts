/**
 * The model's renderings, and the runner against it on small hand-made lists: iterator
 * steps at the ends, a prefix seek with and without an extractor, a transaction that
 * conflicts, and a reproduction's text read back; `shrinkWith` finds the two operations a
 * failure needs.
 */
import { describe, expect, it } from "vitest";
import {
  expectedResults,
  formatReproduction,
  parseReproduction,
  runOne,
  shrinkWith,
} from "./metamorphic.js";
import { iterateModel, prefixModel } from "./model.js";
import type { Op } from "./ops.js";
import { DEFAULT_OPTION_SET } from "./option-space.js";

const entries: [string, string][] = [
  ["aa", "1"],
  ["ab", "2"],
  ["ba", "3"],
];

describe("model renderings", () => {
  it("iterates as a database iterator does", () => {
    expect(iterateModel(entries, ["first", "next", "next", "next", "prev"])).toBe(
      "aa=1 ab=2 ba=3 . .",
    );
    expect(iterateModel(entries, ["last", "prev", { seek: "ab0" }, { seekForPrev: "ab0" }])).toBe(
      "ba=3 ab=2 ba=3 ab=2",
    );
    expect(iterateModel(entries, [{ seek: "zz" }, { seekForPrev: "a" }, "first"])).toBe(". . aa=1");
    expect(iterateModel([], ["first", "last", "next"])).toBe(". . .");
  });

  it("stops a prefix seek at the prefix's end", () => {
    const keys: [string, string][] = [
      ["aa", "1"],
      ["aa5", "2"],
      ["ab", "3"],
    ];
    expect(prefixModel(keys, "aa", 5)).toBe("aa=1 aa5=2");
    expect(prefixModel(keys, "aa3", 5)).toBe("aa5=2");
    expect(prefixModel(keys, "aa", 1)).toBe("aa=1");
    expect(prefixModel(keys, "ac", 5)).toBe("");
  });
});

describe("runner against the model", () => {
  const ops: Op[] = [
    { t: "put", cf: "default", k: "aa", v: "1" },
    { t: "merge", cf: "default", k: "aa", v: "m" },
    { t: "put", cf: "default", k: "ab", v: "2" },
    { t: "put", cf: "default", k: "ba", v: "3", sync: true },
    { t: "snap", id: 0 },
    { t: "createCf", cf: "cf1" },
    {
      t: "batch",
      ops: [
        { t: "put", cf: "cf1", k: "aa", v: "x" },
        { t: "sdel", cf: "cf1", k: "aa" },
      ],
    },
    {
      t: "txn",
      ops: [{ t: "put", cf: "default", k: "ab", v: "t" }],
      reads: [{ cf: "default", k: "ab" }],
      conflict: { cf: "default", k: "ab", v: "c" },
    },
    {
      t: "txn",
      ops: [{ t: "merge", cf: "default", k: "ba", v: "t" }],
      reads: [{ cf: "default", k: "ba" }],
    },
    { t: "drange", cf: "default", s: "aa", e: "ab" },
    { t: "flush", cf: "default" },
    { t: "prefix", cf: "default", k: "ab", n: 4 },
    { t: "get", cf: "default", k: "aa", snap: 0 },
    { t: "iter", cf: "default", lo: "ab", snap: 0, steps: ["first", "next", "next"] },
    { t: "reopen", crash: true },
    { t: "checkpoint" },
    { t: "compact", cf: "default" },
    { t: "iter", cf: "default", steps: ["last", "prev", "prev"] },
  ];

  it("the model's results", () => {
    expect(expectedResults(ops)).toEqual([
      "ok",
      "ok",
      "ok",
      "ok",
      "ok",
      "ok",
      "ok",
      "conflict t",
      "committed 3,t",
      "ok",
      "ok",
      "ab=c",
      "1,m",
      "ab=2 ba=3 .",
      "ok",
      "cf1{} default{ab=c ba=3,t}",
      "ok",
      "ba=3,t ab=c .",
    ]);
  });

  for (const [fs, prefix] of [
    ["memory", "none"],
    ["fault", "fixed"],
    ["node", "capped"],
  ] as const) {
    it(`agrees on ${fs} with prefix extractor ${prefix} (on fault: two extra families)`, async () => {
      const extraFamilies = fs === "fault" ? 2 : 0;
      expect(
        await runOne(ops, { ...DEFAULT_OPTION_SET, fs, prefix, extraFamilies }),
      ).toBeUndefined();
    });
  }

  it("reports the first result that differs", async () => {
    const want = expectedResults(ops);
    want[12] = "2";
    expect(await runOne(ops, DEFAULT_OPTION_SET, want)).toMatchObject({
      index: 12,
      got: "1,m",
      want: "2",
    });
  });
});

describe("reproductions", () => {
  it("read back, and malformed lines are TypeErrors", () => {
    const ops: Op[] = [
      { t: "put", cf: "default", k: "aa", v: "1" },
      { t: "flush", cf: "default" },
    ];
    const text = formatReproduction(["a title"], [DEFAULT_OPTION_SET], ops);
    expect(text.startsWith("# a title\noptions {")).toBe(true);
    expect(parseReproduction(text)).toEqual({ sets: [DEFAULT_OPTION_SET], ops });
    expect(() => parseReproduction("put aa 1")).toThrow(TypeError);
    expect(() => parseReproduction('op {"t":"zap"}')).toThrow(TypeError);
  });

  it("shrinkWith keeps only what the failure needs", async () => {
    const ops: Op[] = [];
    for (let i = 0; i < 40; i++) ops.push({ t: "put", cf: "default", k: `k${i}`, v: `${i}` });
    ops.splice(17, 0, { t: "snap", id: 0 });
    ops.push({ t: "get", cf: "default", k: "k5", snap: 0 });
    // "Fails" while the list still puts k5 and reads it at snapshot 0.
    const fails = async (c: Op[]) =>
      c.some((o) => o.t === "put" && o.k === "k5") && c.some((o) => o.t === "get" && o.k === "k5");
    const small = await shrinkWith(ops, fails);
    expect(small).toEqual([
      { t: "put", cf: "default", k: "k5", v: "5" },
      { t: "snap", id: 0 },
      { t: "get", cf: "default", k: "k5", snap: 0 },
    ]);
  });
});
