import { describe, expect, it } from "vitest";
import { ErrorCode, isCorruption, isShaleError, ShaleError } from "./errors.js";

describe("ShaleError", () => {
  it("carries code, file and offset", () => {
    const e = ShaleError.corruption("bad block checksum", "000007.sst", 4096);
    expect(e).toBeInstanceOf(Error);
    expect(e.code).toBe("Corruption");
    expect(e.file).toBe("000007.sst");
    expect(e.offset).toBe(4096);
    expect(e.message).toBe("Corruption: bad block checksum (000007.sst @ 4096)");
    expect(isCorruption(e)).toBe(true);
    expect(isShaleError(e, ErrorCode.Busy)).toBe(false);
  });

  it("is recognised across copies through the Symbol.for marker", () => {
    const foreign = Object.assign(new Error("x"), {
      [Symbol.for("shale.error")]: true,
      code: "Busy",
    });
    expect(ShaleError.isInstance(foreign)).toBe(true);
    expect(ShaleError.isInstance(new Error("x"))).toBe(false);
    expect(ShaleError.isInstance(null)).toBe(false);
  });

  it("has a closed set of stable codes", () => {
    expect(Object.keys(ErrorCode).sort()).toEqual(
      [
        "AssertionFailed",
        "Busy",
        "Closed",
        "Corruption",
        "IOError",
        "Incomplete",
        "InvalidArgument",
        "NotFound",
        "NotSupported",
        "TimedOut",
        "TryAgain",
      ].sort(),
    );
    expect(Object.isFrozen(ErrorCode)).toBe(true);
  });
});
