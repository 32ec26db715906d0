/**
 * A JetStream server for the tests: `nats-server -js` on a free loopback port with its store
 * in a temp directory, stopped (and the store removed) by `stop()`; or a cluster of them
 * (`startNatsCluster`: routes between loopback ports, one store each). `natsMissing()` says
 * why the tests cannot run here (no nats-server on the PATH), for a printed skip.
 * Test-only.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
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

/** A free loopback TCP port (bound and released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface NatsCluster {
  readonly urls: string[];
  /** Kills node `i` (SIGKILL: its store stays for a restart). */
  kill(i: number): Promise<void>;
  /** Starts node `i` again on its ports and store. */
  restart(i: number): Promise<void>;
  stop(): Promise<void>;
}

/** Starts `size` JetStream servers routed into one cluster on loopback ports. */
export async function startNatsCluster(size = 3): Promise<NatsCluster> {
  const root = mkdtempSync(join(tmpdir(), "shale-nats-cluster-"));
  const clientPorts: number[] = [];
  const routePorts: number[] = [];
  for (let i = 0; i < size; i++) {
    clientPorts.push(await freePort());
    routePorts.push(await freePort());
  }
  const children: (ChildProcess | undefined)[] = [];
  const startNode = (i: number): Promise<void> => {
    const routes = routePorts
      .filter((_, j) => j !== i)
      .map((p) => `nats://127.0.0.1:${p}`)
      .join(",");
    const child = spawn(
      "nats-server",
      [
        "-js",
        "-a",
        "127.0.0.1",
        "-p",
        String(clientPorts[i]),
        "-sd",
        join(root, `n${i}`),
        "--server_name",
        `n${i}`,
        "--cluster_name",
        "shale",
        "--cluster",
        `nats://127.0.0.1:${routePorts[i]}`,
        "--routes",
        routes,
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    children[i] = child;
    return new Promise<void>((resolve, reject) => {
      let log = "";
      const timer = setTimeout(
        () => reject(new Error(`nats-server n${i} did not start:\n${log}`)),
        30_000,
      );
      child.stderr!.on("data", (chunk: Buffer) => {
        log += chunk.toString();
        if (/Server is ready/.test(log)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`nats-server n${i} exited ${code}:\n${log}`));
      });
    });
  };
  await Promise.all(clientPorts.map((_, i) => startNode(i)));
  const stopNode = async (i: number, signal: NodeJS.Signals) => {
    const child = children[i];
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill(signal);
    await exited;
  };
  return {
    urls: clientPorts.map((p) => `nats://127.0.0.1:${p}`),
    kill: (i) => stopNode(i, "SIGKILL"),
    restart: (i) => startNode(i),
    async stop() {
      for (let i = 0; i < size; i++) await stopNode(i, "SIGTERM");
      rmSync(root, { recursive: true, force: true });
    },
  };
}
