import { defineProject } from "vitest/config";
import { shared } from "../../tooling/vitest.shared.ts";

export default defineProject(shared);
