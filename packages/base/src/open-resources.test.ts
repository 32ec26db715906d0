/** Unclosed resources are listed in invariants mode (what and where they were opened). */
import { describe, expect, it } from "vitest";
import { invariants } from "./invariants.js";
import { trackClosed, trackOpen, unclosedResources } from "./open-resources.js";

describe("open resources (invariants)", () => {
  it("runs in invariants mode", () => expect(invariants).toBe(true));

  it("lists a tracked resource until it is closed, with where it was opened", () => {
    const r = {};
    trackOpen(r, "test resource 1");
    const mine = () => unclosedResources((x) => x === r);
    expect(mine()).toHaveLength(1);
    expect(mine()[0]).toMatch(/^test resource 1 \(opened at .*open-resources\.test\.ts/);
    trackClosed(r);
    expect(mine()).toEqual([]);
    trackClosed(r); // idempotent
    trackClosed({}); // never tracked
    expect(mine()).toEqual([]);
  });
});
