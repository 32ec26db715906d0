#!/usr/bin/env node
// Proves every publishable package packs and that its `exports` resolve from the tarball:
// 1. publint on each package (package.json / exports / files lint);
// 2. `pnpm pack` each package and run @arethetypeswrong/cli on the tarball: the types of
//    every entry resolve for node16 (from CJS and from ESM) and bundler resolution;
// 3. unpack the tarballs into a scratch node_modules (third-party dependencies linked from
//    the workspace install), then `import` AND `require` every export entry from the
//    unpacked copies — exactly what a user would load;
// 4. the tarball is publishable: LICENSE, no placeholder URL, no benchmark code, and every
//    relative link of its README points at a file the tarball ships.
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
    try {
      execFileSync(
        process.execPath,
        [
          join(root, "node_modules/@arethetypeswrong/cli/dist/index.js"),
          tarball,
          "--profile",
          "node16",
          "--format",
          "table-flipped",
        ],
        { stdio: "pipe", encoding: "utf8" },
      );
      console.log(`✓ ${pj.name}: attw (node16 CJS, node16 ESM, bundler) finds no problem`);
    } catch (e) {
      console.error(`✗ ${pj.name}: attw found problems:\n${e.stdout}${e.stderr}`);
      failed = true;
    }
    const dest = join(nm, pj.name);
    mkdirSync(dest, { recursive: true });
    execFileSync("tar", ["-xzf", tarball, "-C", dest, "--strip-components=1"]);
    const shipped = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" })
      .split("\n")
      .map((l) => l.replace(/^package\//, ""));
    const bench = shipped.filter((f) => /(^|\/)bench\//.test(f));
    if (bench.length > 0) {
      console.error(`✗ ${pj.name}: the tarball ships benchmark code: ${bench.join(", ")}`);
      failed = true;
    }
    const readme = existsSync(join(dest, "README.md"))
      ? readFileSync(join(dest, "README.md"), "utf8")
      : "";
    for (const [, link] of readme.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/i.test(link)) continue; // absolute (https:, mailto:)
      if (!existsSync(join(dest, link))) {
        console.error(`✗ ${pj.name}: README links ${link}, which the tarball does not ship`);
        failed = true;
      }
    }
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
      if (
        typeof entry?.import?.default !== "string" ||
        typeof entry?.require?.default !== "string"
      ) {
        console.error(
          `✗ ${spec}: exports["${sub}"] needs { source, import: { types, default }, require: { types, default } } (see tooling/scripts/postbuild.mjs)`,
        );
        failed = true;
        continue;
      }
      let missing = false;
      for (const file of [entry.import.default, entry.require.default]) {
        if (existsSync(join(nm, pj.name, file))) continue;
        console.error(`✗ ${spec}: ${file} is not in the tarball`);
        failed = missing = true;
      }
      if (missing) continue;
      // @shale/base/testing needs vitest at import time (a test-only entry).
      if (sub === "./testing" && pj.name === "@shale/base") continue;
      const s = JSON.stringify(spec);
      for (const [how, args] of [
        ["import", ["--input-type=module", "-e", `await import(${s})`]],
        ["require", ["--input-type=commonjs", "-e", `require(${s})`]],
      ]) {
        try {
          execFileSync(process.execPath, args, { cwd: scratch, stdio: "pipe" });
          console.log(`✓ ${spec}: ${how} from its tarball`);
        } catch (e) {
          console.error(`✗ ${spec}: ${how} from its tarball failed:\n${e.stderr}`);
          failed = true;
        }
      }
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
