// Preload for worker-start.test.ts (`node --import`): Node runs preloads in worker threads
// too, so every background worker throws before its script starts — as a worker does when
// the thread cannot bootstrap. The main thread is untouched.
import { isMainThread } from "node:worker_threads";

if (!isMainThread) throw new Error("injected: this worker dies before its script runs");
