/**
 * `close()` of a worker pool whose worker dies while a job is pending: the job fails (the
 * worker's 'error' event) and close returns. The wait runs in a child process, so a close
 * that never returns (a synchronous wait never sees the event) fails by timeout instead of
 * blocking the test runner's event loop.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const executor = fileURLToPath(
  new URL("../../dist/background/worker-executor.js", import.meta.url),
);
const packageDir = fileURLToPath(new URL("../..", import.meta.url));

describe("WorkerExecutor.close", () => {
  it("returns when the worker dies with a job pending (its 'error' event fails the job)", () => {
    const script = `
      const { WorkerExecutor } = await import(${JSON.stringify(executor)});
      const { NodeFileSystem } = await import("@shale/base");
      const ex = new WorkerExecutor(1, new NodeFileSystem());
      const slot = ex.slot();
      // A null job makes the worker's message handler throw outside its try: the worker dies
      // with an uncaught exception (an 'error' event here) before it reads the next job.
      slot.transport.port.postMessage(null);
      let removed = false;
      ex.removeFiles(["/nonexistent/shale-file"], () => { removed = true; });
      await ex.close();
      console.log(JSON.stringify({ removed, pending: ex.pending }));
    `;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: packageDir,
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(r.signal, `close did not return: ${r.stderr}`).toBeNull();
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout.trim())).toEqual({ removed: true, pending: 0 });
  });
});
