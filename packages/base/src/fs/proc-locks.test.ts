/**
 * The /proc/locks parser and the holder match, data-driven (testdata/proc-locks.txt: POSIX,
 * OFDLCK, FLOCK, LEASE and DELEG lines, `->` waiters, hexadecimal devices), and the device
 * decoding against glibc's `makedev` for every major and minor.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deviceNumbers, holdersOf, parseProcLocksLine } from "./proc-locks.js";

/** glibc's `makedev(major, minor)`: the encoding of `stat.st_dev` that Node reports. */
function makedev(major: number, minor: number): bigint {
  const ma = BigInt(major);
  const mi = BigInt(minor);
  return (
    ((ma & 0xfffn) << 8n) | ((ma & 0xfffff000n) << 32n) | (mi & 0xffn) | ((mi & 0xffffff00n) << 12n)
  );
}

interface Case {
  command: string;
  input: string[];
  expected: string[];
  line: number;
}

function readCases(): Case[] {
  const file = join(import.meta.dirname, "..", "..", "testdata", "proc-locks.txt");
  const lines = readFileSync(file, "utf8").split("\n");
  const cases: Case[] = [];
  let i = 0;
  while (i < lines.length) {
    const head = lines[i] ?? "";
    if (head.trim() === "" || head.startsWith("#")) {
      i++;
      continue;
    }
    const c: Case = { command: head, input: [], expected: [], line: i + 1 };
    i++;
    while (i < lines.length && lines[i] !== "----") c.input.push(lines[i++] ?? "");
    i++;
    while (i < lines.length && (lines[i] ?? "").trim() !== "") c.expected.push(lines[i++] ?? "");
    cases.push(c);
  }
  return cases;
}

function run(c: Case): string[] {
  const [verb, arg] = c.command.split(" ");
  if (verb === "parse") {
    return c.input.map((line) => {
      const lock = parseProcLocksLine(line);
      if (lock === undefined) return "skip";
      const file = lock.inode === undefined ? "none" : `${lock.major}:${lock.minor}:${lock.inode}`;
      const fields = [lock.id, lock.kind, lock.mode, lock.access, lock.pid, file];
      return [...fields, ...(lock.blocked ? ["blocked"] : [])].join(" ");
    });
  }
  if (verb === "holders") {
    const [major, minor, inode] = (arg ?? "").split(":");
    const dev = makedev(Number(major), Number(minor));
    const holders = holdersOf(c.input.join("\n"), dev, BigInt(inode ?? "0"));
    if (holders.length === 0) return ["none"];
    return holders.map((h) => `${h.kind} ${h.access} ${h.pid ?? "-"}`);
  }
  throw new Error(`unknown command ${c.command}`);
}

describe("/proc/locks (testdata/proc-locks.txt)", () => {
  const cases = readCases();
  it("has cases", () => expect(cases.length).toBeGreaterThan(5));
  for (const c of cases) {
    it(`line ${c.line}: ${c.command}`, () => expect(run(c)).toEqual(c.expected));
  }
});

describe("deviceNumbers", () => {
  it("inverts glibc's makedev for every 32-bit major and minor", () => {
    fc.assert(
      fc.property(fc.nat(0xffffffff), fc.nat(0xffffffff), (major, minor) => {
        expect(deviceNumbers(makedev(major, minor))).toEqual({ major, minor });
      }),
    );
  });

  it("matches a lock line printed with the kernel's %02x:%02x for any device", () => {
    // The kernel's dev_t has 12 bits of major and 20 of minor.
    fc.assert(
      fc.property(fc.nat(0xfff), fc.nat(0xfffff), fc.bigInt(1n, 2n ** 64n - 1n), (ma, mi, ino) => {
        const hex = (n: number) => n.toString(16).padStart(2, "0");
        const text = `1: POSIX  ADVISORY  WRITE 42 ${hex(ma)}:${hex(mi)}:${ino} 0 EOF\n`;
        expect(holdersOf(text, makedev(ma, mi), ino)).toEqual([
          { kind: "POSIX", access: "WRITE", pid: 42 },
        ]);
      }),
    );
  });
});
