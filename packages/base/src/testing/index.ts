/**
 * Test-only helpers (`@shale/base/testing`): the conformance suites that every
 * implementation of a base contract runs, the data-driven test runner, error assertions, a
 * seeded PRNG, and workers that run the workspace's TypeScript sources. Imports vitest; never
 * import this from production code. Benchmarks (which run without vitest) import
 * `@shale/base/testing/random` instead.
 */
export * from "./datadriven.js";
export * from "./datadriven-vitest.js";
export * from "./expect-error.js";
export * from "./fs-conformance.js";
export * from "./iterator-conformance.js";
export * from "./iterator-trace.js";
export * from "./random.js";
export * from "./text-keys.js";
export * from "./ts-worker.js";
export * from "./v8-natives.js";
