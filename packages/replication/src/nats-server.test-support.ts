/**
 * A JetStream server for the tests: `nats-server -js` on a free loopback port with its store
 * in a temp directory, stopped (and the store removed) by `stop()`. `natsMissing()` says
 * why the tests cannot run here (no nats-server on the PATH), for a printed skip.
 * Test-only.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Why nats-server cannot be started here, or undefined. */
export function natsMissing(): string | undefined {
  const r = spawnSync("nats-server", ["--version"], { encoding: "utf8", timeout: 10_000 });
  return r.error === undefined
    ? undefined
    : "nats-server is not on the PATH (apt-get install nats-server, as .ci/run does)";
}

export interface NatsServer {
  readonly url: string;
  readonly storeDir: string;
  /** Stops the server; `keepStore` keeps its files (a restart uses them). */
  stop(keepStore?: boolean): Promise<void>;
}

/** Starts `nats-server -js` (in `storeDir`, default a new temp dir). */
export async function startNatsServer(storeDir?: string): Promise<NatsServer> {
  const store = storeDir ?? mkdtempSync(join(tmpdir(), "shale-nats-"));
  const child: ChildProcess = spawn(
    "nats-server",
    ["-js", "-a", "127.0.0.1", "-p", "-1", "-sd", store, "--http_port", "0"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let log = "";
    const timer = setTimeout(() => reject(new Error(`nats-server did not start:\n${log}`)), 20_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      const m = /Listening for client connections on ([\d.]+:\d+)/.exec(log);
      if (m !== null && /Server is ready/.test(log)) {
        clearTimeout(timer);
        resolve(`nats://${m[1]}`);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`nats-server exited ${code}:\n${log}`));
    });
  });
  child.stderr!.resume();
  return {
    url,
    storeDir: store,
    async stop(keepStore = false) {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      if (!keepStore) rmSync(store, { recursive: true, force: true });
    },
  };
}
