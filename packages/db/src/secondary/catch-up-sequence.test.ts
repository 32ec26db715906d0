/**
 * A catch-up whose second MANIFEST read (the one after the WALs, follower.ts) finds an edit
 * newer than the WAL records it read must not report that edit's sequence number without
 * the writes below it: here the primary flushed and then wrote to its new WAL while the
 * secondary read the WALs (simulated by a file system that shows the secondary the MANIFEST
 * without the flush's edit and the WAL list without the new WAL during the first reads),
 * and the catch-up must read the new WAL before it installs that sequence.
 */
import { type FileSystem, MemoryFileSystem, type SequentialFile } from "@shale/base";
import { describe, expect, it } from "vitest";
import { DB } from "../db.js";

/**
 * The secondary's view of `inner`: while `stale`, its first MANIFEST open ends at
 * `manifestBytes` and its first directory listing leaves out the WALs from `hiddenLog` on
 * (they were written after those reads); later opens and listings see everything.
 */
function staleView(inner: MemoryFileSystem) {
  const view = {
    stale: false,
    manifestBytes: 0,
    hiddenLog: Number.POSITIVE_INFINITY,
    manifestOpens: 0,
    lists: 0,
  };
  const fs = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === "openSequential")
        return (path: string): SequentialFile => {
          if (view.stale && /MANIFEST-\d+$/.test(path) && view.manifestOpens++ === 0) {
            inner.writeFile(
              "/stale-manifest",
              inner.readFile(path).subarray(0, view.manifestBytes),
            );
            return inner.openSequential("/stale-manifest");
          }
          return inner.openSequential(path);
        };
      if (prop === "list")
        return (dir: string): string[] => {
          const names = inner.list(dir);
          if (!view.stale || view.lists++ > 0) return names;
          return names.filter((n) => {
            const m = /^(\d+)\.log$/.exec(n);
            return m === null || Number(m[1]) < view.hiddenLog;
          });
        };
      const v = Reflect.get(target, prop, receiver);
      return typeof v === "function" ? v.bind(target) : v;
    },
  }) as FileSystem;
  return { fs, view };
}

const text = (v: Uint8Array | undefined) =>
  v === undefined ? undefined : Buffer.from(v).toString();

describe("tryCatchUpWithPrimary after a flush it saw only half", () => {
  it("reads the new WAL before it reports the flush edit's sequence", async () => {
    const inner = new MemoryFileSystem();
    const primary = await DB.open("/db", { fs: inner });
    primary.put("k1", "1");
    const { fs, view } = staleView(inner);
    const secondary = await DB.openAsSecondary("/db", undefined, { fs });
    expect(text(secondary.get("k1"))).toBe("1");
    const manifest = inner.list("/db").find((n) => n.startsWith("MANIFEST-"))!;
    view.manifestBytes = inner.fileSize(`/db/${manifest}`);
    const logsBefore = inner.list("/db").filter((n) => n.endsWith(".log"));
    primary.put("k2", "2");
    const flushed = primary.flush(); // switches to a new WAL now, installs later
    primary.put("k3", "3"); // in the new WAL, before the flush's edit is written
    await flushed;
    const newLog = inner
      .list("/db")
      .filter((n) => n.endsWith(".log") && !logsBefore.includes(n))
      .map((n) => Number.parseInt(n, 10));
    expect(newLog.length).toBe(1);
    view.hiddenLog = newLog[0]!;
    view.stale = true;
    view.manifestOpens = 0;
    const { lastSequence } = secondary.tryCatchUpWithPrimary();
    view.stale = false;
    expect(lastSequence).toBe(primary.latestSequence);
    // Whatever sequence it reports, it has every write up to it.
    expect([
      text(secondary.get("k1")),
      text(secondary.get("k2")),
      text(secondary.get("k3")),
    ]).toEqual(["1", "2", "3"]);
    await secondary.close();
    await primary.close();
  });
});
