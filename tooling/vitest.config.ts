import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    include: ["*.test.ts", "scripts/**/*.test.ts"],
    environment: "node",
    testTimeout: 120_000,
  },
});
