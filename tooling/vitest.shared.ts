import type { UserWorkspaceConfig } from "vitest/config";

/**
 * The one vitest configuration every package and app uses.
 *
 * Workspace packages resolve through the `source` export condition to their TypeScript
 * sources, so tests never need a prior build. The README-example test in `tooling/` is the
 * one that runs against the built `dist/` output on purpose.
 *
 * Invariant checks (see `@shale/base` `invariants`) are switched on for every test run.
 */
export const shared: UserWorkspaceConfig = {
  resolve: { conditions: ["source", "module", "node", "import", "default"] },
  ssr: {
    resolve: {
      conditions: ["source", "node", "import", "default"],
      externalConditions: ["source"],
    },
  },
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
    env: { SHALE_INVARIANTS: "1" },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
};
