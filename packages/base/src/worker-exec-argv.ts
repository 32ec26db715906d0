/**
 * The Node options a worker thread gets: its parent's, minus the ones a worker must not have.
 * Every package that starts a Node worker thread uses it: @shale/db's background workers,
 * @shale/replication's publisher worker, @shale/opfs's test I/O worker. It reads
 * `process.execArgv` only when called, so the module loads in a browser too.
 *
 * Threading: any.
 */

/**
 * Node options for worker threads: the parent's, minus `--conditions` (a test runner's
 * "source" condition would make the worker load TypeScript sources it cannot run) and
 * `--input-type` (a parent run as `node --input-type=module -e ...`: a worker given it dies
 * at startup, "--input-type can only be used with string input", and a writer stalled for
 * its first flush waited forever).
 */
export function workerExecArgv(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--conditions" || a === "-C" || a === "--input-type") i++;
    else if (!a.startsWith("--conditions=") && !a.startsWith("--input-type=")) out.push(a);
  }
  return out;
}
