import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import type { LevelInfo, TableInfo } from "./levels-model.js";
import { renderLevelsSvg } from "./levels-svg.js";

const enc = new TextEncoder();
const table = (number: number, lo: string, hi: string, size = 1000): TableInfo => ({
  number,
  size,
  smallest: enc.encode(lo),
  largest: enc.encode(hi),
  smallestSeq: 1,
  largestSeq: 2,
});
const levels = (...files: TableInfo[][]): LevelInfo[] =>
  files.map((f, level) => ({ level, files: f, bytes: f.reduce((n, t) => n + t.size, 0) }));

function rects(svg: string) {
  expect(XMLValidator.validate(svg)).toBe(true);
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(svg) as {
    svg: { rect: Record<string, string>[] };
  };
  return doc.svg.rect
    .filter((r) => r.class === "table")
    .map((r) => ({
      number: Number(r["data-number"]),
      x: Number(r.x),
      width: Number(r.width),
      fill: r.fill!,
    }));
}

describe("renderLevelsSvg", () => {
  it("places tables on one key axis: L1 side by side, L0 over the keys it covers", () => {
    const svg = renderLevelsSvg(
      levels(
        [table(9, "c", "f")],
        [table(1, "a", "b"), table(2, "c", "d"), table(3, "e", "h", 4000)],
      ),
      "t",
    );
    const [l0, a, c, e] = rects(svg);
    expect(a!.x + a!.width).toBeLessThanOrEqual(c!.x);
    expect(c!.x + c!.width).toBeLessThanOrEqual(e!.x);
    expect(l0!.x).toBeCloseTo(c!.x, 5); // both start at "c"
    expect(l0!.x + l0!.width).toBeGreaterThan(e!.x); // "f" is inside [e, h]
    expect(l0!.x + l0!.width).toBeLessThan(e!.x + e!.width);
    // Darker = bigger: the 4000-byte table has the lowest lightness.
    const lightness = (fill: string) => Number(/(\d+)%\)$/.exec(fill)![1]);
    expect(lightness(e!.fill)).toBeLessThan(lightness(a!.fill));
  });

  it("draws tables that all hold one key across the whole axis", () => {
    const [a, b] = rects(renderLevelsSvg(levels([table(1, "k", "k"), table(2, "k", "k")]), "t"));
    expect(a!.width).toBeGreaterThan(800);
    expect(b!.width).toBe(a!.width);
  });

  it("escapes keys and titles, and draws an empty database", () => {
    const svg = renderLevelsSvg(levels([table(1, "<&>", "\"'")]), "dir <x>");
    expect(rects(svg).length).toBe(1);
    expect(svg).toContain("dir &#60;x&#62;");
    expect(rects(renderLevelsSvg(levels([], []), "empty"))).toEqual([]);
  });
});
