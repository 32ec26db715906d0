/**
 * An open that fails part-way through recovery (a sync fails while the replayed WAL is
 * flushed, the new MANIFEST written, the OPTIONS file or the edit installed) closes every
 * writable handle it opened: the caller releases the LOCK, and nothing is left open for the
 * process to leak. A reopen with the fault cleared then recovers every write.
 */
import { FaultInjectionFileSystem, type FileSystem, MemoryFileSystem } from "@shale/base";
import { describe, expect, it } from "vitest";
import { DB } from "./db.js";

const str = (b: Uint8Array | undefined) =>
  b === undefined ? undefined : new TextDecoder().decode(b);

/** `fs` with a count of writable handles opened and not yet closed. */
function counting(fs: FileSystem): { fs: FileSystem; open: () => number; paths: Set<string> } {
  let open = 0;
  const paths = new Set<string>();
  const wrapped = new Proxy(fs, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (name !== "openWritable") return typeof value === "function" ? value.bind(target) : value;
      return (...args: Parameters<FileSystem["openWritable"]>) => {
        const file = target.openWritable(...args);
        open++;
        paths.add(String(args[0]));
        let closed = false;
        const close = file.close.bind(file);
        file.close = () => {
          if (!closed) {
            closed = true;
            open--;
            paths.delete(String(args[0]));
          }
          close();
        };
        return file;
      };
    },
  });
  return { fs: wrapped, open: () => open, paths };
}

describe("a failed open", () => {
  it("closes every writable handle it opened, at every sync of the recovery", async () => {
    const base = new FaultInjectionFileSystem(new MemoryFileSystem());
    const db = await DB.open("/db", { fs: base });
    for (let i = 0; i < 300; i++) db.put(`k${i}`, `v${i}`);
    await db.close();
    let failed = 0;
    for (let n = 1; n < 40; n++) {
      const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
      fs.mkdir("/db");
      for (const name of base.list("/db"))
        fs.writeFile(`/db/${name}`, base.readFile(`/db/${name}`));
      const { fs: watched, open, paths } = counting(fs);
      fs.failAfter("sync", n, "EIO");
      const opened = await DB.open("/db", { fs: watched }).then(
        (d) => d,
        () => undefined,
      );
      if (opened === undefined) {
        failed++;
        expect(open(), `sync ${n}: handles left open: ${[...paths].join(", ")}`).toBe(0);
      } else {
        await opened.close().catch(() => undefined);
        expect(open()).toBe(0);
      }
      fs.clearFaults();
      const again = await DB.open("/db", { fs });
      for (let i = 0; i < 300; i += 7) expect(str(again.get(`k${i}`)), `sync ${n}`).toBe(`v${i}`);
      await again.close();
      if (opened !== undefined) break; // the fault fired after the open: every sync point seen
    }
    expect(failed).toBeGreaterThan(1);
  });
});
