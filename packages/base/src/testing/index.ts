/**
 * Test-only helpers (`@shale/base/testing`): the conformance suites that every
 * implementation of a base contract runs, and a seeded PRNG. Imports vitest; never import
 * this from production code.
 */
export * from "./fs-conformance.js";
export * from "./iterator-conformance.js";
export * from "./random.js";
