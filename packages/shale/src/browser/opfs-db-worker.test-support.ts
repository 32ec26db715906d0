/**
 * The database worker of the browser tests (bundled with esbuild by harness.test-support.ts):
 * shale on `OpfsFileSystem` in a dedicated worker, driven by messages from the test page.
 * `{ id, cmd, args }` in, `{ id, value }` or `{ id, error: { code, message } }` out; the
 * endless writer also posts `{ progress }` after every 10 synced writes.
 */
import { type DB, open } from "../index.js";
import { OpfsFileSystem } from "../opfs/index.js";

interface Command {
  id: number;
  cmd: string;
  args: { name: string; n?: number; from?: number; inline?: boolean; tight?: boolean };
}

const scope = globalThis as unknown as {
  postMessage(m: unknown): void;
  addEventListener(t: "message", l: (e: { data: Command }) => void): void;
};

const key = (i: number): string => `key${String(i).padStart(8, "0")}`;
const value = (i: number): string => `value-${i}-${"v".repeat(i % 64)}`;
const decoder = new TextDecoder();

let held: { db: DB; fs: OpfsFileSystem } | undefined;

async function openDb(name: string): Promise<{ db: DB; fs: OpfsFileSystem }> {
  const fs = await OpfsFileSystem.open(name);
  try {
    return { db: await open("db", { fs, writeBufferSize: 256 * 1024 }), fs };
  } catch (err) {
    await fs.close();
    throw err;
  }
}

async function run(c: Command): Promise<unknown> {
  const { name } = c.args;
  switch (c.cmd) {
    case "fill": {
      const { db, fs } = await openDb(name);
      const n = c.args.n ?? 0;
      for (let i = 0; i < n; i++) db.put(key(i), value(i));
      for (let i = 0; i < n; i += 5) db.delete(key(i));
      await db.flush();
      await db.compactRange();
      const levels = db.getProperty("shale.levelstats");
      const stats = fs.stats();
      await db.close();
      await fs.close();
      return { levels, stats, atomicMove: fs.atomicMove };
    }
    case "verify": {
      const { db, fs } = await openDb(name);
      const n = c.args.n ?? 0;
      let wrong = 0;
      for (let i = 0; i < n; i++) {
        const v = db.get(key(i));
        const want = i % 5 === 0 ? undefined : value(i);
        if ((v === undefined ? undefined : decoder.decode(v)) !== want) wrong++;
      }
      let count = 0;
      for (const _ of db.iterator()) count++;
      await db.close();
      await fs.close();
      return { wrong, count };
    }
    case "verifySynced": {
      const { db, fs } = await openDb(name);
      const n = c.args.n ?? 0;
      let missing = 0;
      for (let i = 0; i < n; i++) {
        const v = db.get(key(i));
        if (v === undefined || decoder.decode(v) !== value(i)) missing++;
      }
      let count = 0;
      for (const _ of db.iterator()) count++;
      await db.close();
      await fs.close();
      return { missing, count };
    }
    case "compactWhileTicking": {
      // Fills without compactions, then times a full compaction while a 5 ms timer ticks:
      // the largest gap between ticks shows whether this worker's event loop was blocked.
      const warnings: string[] = [];
      const warn = console.warn;
      console.warn = (...a: unknown[]) => warnings.push(a.map(String).join(" "));
      const fs = await OpfsFileSystem.open(
        name,
        c.args.inline === true ? { backgroundWorkerUrl: false } : {},
      );
      const db = await open("db", {
        fs,
        writeBufferSize: 512 * 1024,
        disableAutoCompactions: true,
      });
      const n = c.args.n ?? 0;
      // Writes arrive as an application's would (a turn of the event loop between batches),
      // so a flush is never waited for synchronously; with `tight`, in one synchronous loop
      // that stalls for flushes before the nested workers got their first message.
      const loopStart = performance.now();
      for (let i = 0; i < n; i++) {
        db.put(key(i), value(i));
        if (c.args.tight !== true && i % 500 === 499) await new Promise((r) => setTimeout(r, 0));
      }
      const loopMs = performance.now() - loopStart;
      await db.flush();
      let ticks = 0;
      let last = performance.now();
      let maxGap = 0;
      const timer = setInterval(() => {
        const now = performance.now();
        if (now - last > maxGap) maxGap = now - last;
        last = now;
        ticks++;
      }, 5);
      const start = performance.now();
      await db.compactRange();
      const end = performance.now();
      const compactMs = end - start;
      clearInterval(timer);
      // The gap still open when the compaction ended counts too.
      if (end - last > maxGap) maxGap = end - last;
      const level0 = db.getProperty("shale.num-files-at-level0");
      let count = 0;
      for (const _ of db.iterator()) count++;
      await db.close();
      await fs.close();
      console.warn = warn;
      return { maxGap, compactMs, ticks, level0, count, warnings, loopMs };
    }
    case "writeForever": {
      const { db } = await openDb(name);
      for (let i = 0; ; i++) {
        db.put(key(i), value(i), { sync: true });
        if (i % 10 === 9) scope.postMessage({ progress: i + 1 });
      }
    }
    case "hold":
      held = await openDb(name);
      return "held";
    case "release":
      if (held !== undefined) {
        await held.db.close();
        await held.fs.close();
        held = undefined;
      }
      return "released";
    case "tryOpen": {
      const { db, fs } = await openDb(name);
      await db.close();
      await fs.close();
      return "opened";
    }
    default:
      throw new Error(`unknown command ${c.cmd}`);
  }
}

scope.addEventListener("message", (e) => {
  const c = e.data;
  run(c).then(
    (value) => scope.postMessage({ id: c.id, value }),
    (err: unknown) =>
      scope.postMessage({
        id: c.id,
        error: {
          code: (err as { code?: string }).code ?? "Error",
          message: String((err as Error).message ?? err),
        },
      }),
  );
});
