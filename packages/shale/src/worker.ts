/**
 * shale/worker — the background worker thread's entry, for bundlers that do not follow
 * `new Worker(new URL("./worker.js", import.meta.url))` themselves (esbuild): bundle it as
 * a second entry point named `worker.js` beside the app (`esbuild app.ts worker=shale/worker
 * --bundle --platform=node --format=esm --outdir=out`). Importing it elsewhere does nothing.
 */
import "@shale/db/worker";
