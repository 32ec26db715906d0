#!/usr/bin/env node
// Proves every publishable package packs and that its `exports` resolve from the tarball:
// 1. publint on each package (package.json / exports / files lint);
// 2. `pnpm pack` each package, unpack the tarballs into a scratch node_modules (third-party
//    dependencies linked from the workspace install), and import every export entry from
//    the unpacked copies — exactly what a user's `import` would load.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const root = join(import.meta.dirname, "..", "..");
const pnpm = process.env.PNPM ?? "npx -y pnpm@10.34.8";
const scratch = mkdtempSync(join(tmpdir(), "shale-pack-"));
const nm = join(scratch, "node_modules");
mkdirSync(nm);
let failed = false;
const pkgs = readdirSync(join(root, "packages")).map((d) => join(root, "packages", d));
try {
  for (const dir of pkgs) {
    const pj = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    execFileSync(
      process.execPath,
      [join(root, "node_modules/publint/src/cli.js"), "run", dir, "--strict", "--pack", "false"],
      { stdio: "inherit" },
    );
    const out = execFileSync("sh", ["-c", `${pnpm} pack --pack-destination ${scratch}`], {
      cwd: dir,
      encoding: "utf8",
    });
    const tarball = out.trim().split("\n").pop();
    const dest = join(nm, pj.name);
    mkdirSync(dest, { recursive: true });
    execFileSync("tar", ["-xzf", tarball, "-C", dest, "--strip-components=1"]);
    // Publishable: the licence its package.json names ships with it, and no placeholder URL.
    if (!existsSync(join(dest, "LICENSE"))) {
      console.error(`✗ ${pj.name}: the tarball has no LICENSE file`);
      failed = true;
    }
    if (JSON.stringify(pj).includes("example.invalid")) {
      console.error(`✗ ${pj.name}: package.json holds a placeholder URL (example.invalid)`);
      failed = true;
    }
    for (const dep of Object.keys(pj.dependencies ?? {})) {
      if (dep.startsWith("@shale/") || dep === "shale") continue;
      const target = join(nm, dep);
      if (existsSync(target)) continue;
      mkdirSync(dirname(target), { recursive: true });
      symlinkSync(realpathSync(join(dir, "node_modules", dep)), target);
    }
  }
  for (const dir of pkgs) {
    const pj = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    for (const [sub, entry] of Object.entries(pj.exports)) {
      if (sub === "./package.json") continue;
      const spec = sub === "." ? pj.name : `${pj.name}/${sub.slice(2)}`;
      const file = join(nm, pj.name, entry.import);
      if (!existsSync(file)) {
        console.error(`✗ ${spec}: ${entry.import} is not in the tarball`);
        failed = true;
        continue;
      }
      if (sub === "./testing") continue; // test-only entry: needs vitest at import time
      try {
        execFileSync(
          process.execPath,
          ["--input-type=module", "-e", `await import(${JSON.stringify(spec)})`],
          { cwd: scratch, stdio: "pipe" },
        );
        console.log(`✓ ${spec} imports from its tarball`);
      } catch (e) {
        console.error(`✗ ${spec} failed to import from its tarball:\n${e.stderr}`);
        failed = true;
      }
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
