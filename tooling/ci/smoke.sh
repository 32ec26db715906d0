#!/usr/bin/env bash
# Tarball smoke tests, as a new user would meet shale: every package packed (pnpm pack), the
# tarballs installed with npm into a fresh folder OUTSIDE the monorepo, then
#   ESM import · CJS require · TypeScript (node16 CJS, node16 ESM, bundler) · esbuild bundle
#   · Bun · Deno
# each printing what it ran. Needs a build first. Bun and Deno come from the npm registry
# (npx -y bun@... / deno@...). Usage: tooling/ci/smoke.sh
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PNPM="${PNPM:-npx -y pnpm@10.34.8}"
BUN_VERSION=1.4.5
DENO_VERSION=2.9.6
TS_VERSION=5.9.3
TSX_VERSION=4.23.15
ESBUILD_VERSION=0.28.2
WORK="$(mktemp -d "${TMPDIR:-/tmp}/shale-smoke-XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
step() { echo "── smoke: $*"; }

step "pnpm pack every package into $WORK/tarballs"
mkdir -p "$WORK/tarballs"
for dir in "$ROOT"/packages/*/; do
  (cd "$dir" && $PNPM pack --pack-destination "$WORK/tarballs" >/dev/null)
done
ls "$WORK/tarballs"

APP="$WORK/app"
mkdir -p "$APP"
cd "$APP"
step "fresh project: npm init -y (CommonJS by default), npm install the tarballs"
npm init -y >/dev/null
npm install --no-audit --no-fund --loglevel=error "$WORK"/tarballs/*.tgz
npm install --no-audit --no-fund --loglevel=error "typescript@$TS_VERSION" "esbuild@$ESBUILD_VERSION" "tsx@$TSX_VERSION"
cp "$ROOT/tooling/ci/smoke-app.mjs" "$APP/smoke-app.mjs"

step "the shale command installed with shale (@shale/cli): put, then get"
./node_modules/.bin/shale put "$WORK/db-bin" greeting hello >/dev/null
test "$(./node_modules/.bin/shale get "$WORK/db-bin" greeting)" = hello
echo "bin: shale put/get ok"

step "ESM: node smoke-app.mjs (import from \"shale\": open, 100k puts, flush, compaction, reads, scans, reopen)"
node smoke-app.mjs "$WORK/db-esm"

step "CJS: node require.cjs (require(\"shale\") and require(\"shale/testing\"))"
cat >require.cjs <<'JS'
const { open, MemoryFileSystem, ShaleError, DBIterator, LRUCache } = require("shale");
const { FaultInjectionFileSystem } = require("shale/testing");
(async () => {
  const db = await open(process.argv[2]);
  db.put("a", "1");
  await db.flush();
  const it = db.iterator();
  if (!(it instanceof DBIterator)) throw new Error("iterator is not a DBIterator");
  it.close();
  const v = new TextDecoder().decode(db.get("a"));
  await db.close();
  const mem = await open("/m", { fs: new FaultInjectionFileSystem(new MemoryFileSystem()), blockCache: new LRUCache({ capacity: 1 << 20 }) });
  await mem.close();
  if (v !== "1" || typeof ShaleError !== "function") throw new Error("require smoke failed");
  console.log("cjs: require('shale') opened, put, flushed, read back", JSON.stringify(v), "and shale/testing loaded");
})().catch((e) => { console.error(e); process.exit(1); });
JS
node require.cjs "$WORK/db-cjs"

TS_APP='import { open, type DbOptions, type DBIterator, ShaleError, isShaleError } from "shale";
import { FaultInjectionFileSystem } from "shale/testing";
const options: DbOptions = { createIfMissing: true };
export async function main(dir: string): Promise<string> {
  const db = await open(dir, options);
  db.put("k", "v");
  const it: DBIterator = db.iterator();
  it.close();
  const got = new TextDecoder().decode(db.get("k"));
  await db.close();
  const e: unknown = new ShaleError("Busy", "x");
  return `${got} ${isShaleError(e, "Busy")} ${typeof FaultInjectionFileSystem}`;
}'
run_tsc() { # name module moduleResolution file
  mkdir -p "ts-$1"
  printf '%s\n' "$TS_APP" >"ts-$1/$4"
  cat >"ts-$1/tsconfig.json" <<JSON
{ "compilerOptions": { "module": "$2", "moduleResolution": "$3", "target": "ES2022",
  "lib": ["ES2022", "DOM"], "types": [], "strict": true, "skipLibCheck": false,
  "outDir": "out" }, "files": ["$4"] }
JSON
  npx tsc -p "ts-$1/tsconfig.json"
}
step "TypeScript node16 CommonJS (module node16 in a CommonJS project, skipLibCheck false): tsc, then run the output"
run_tsc cjs node16 node16 app.ts
node -e 'require("./ts-cjs/out/app.js").main(process.argv[1]).then((r) => console.log("ts node16-cjs:", r))' "$WORK/db-ts-cjs"
step "TypeScript node16 ESM (.mts): tsc, then run the output"
run_tsc esm node16 node16 app.mts
node --input-type=module -e 'const { main } = await import("./ts-esm/out/app.mjs"); console.log("ts node16-esm:", await main(process.argv[1]))' "$WORK/db-ts-esm"
step "TypeScript bundler resolution (module esnext): tsc --noEmit"
run_tsc bundler esnext bundler app.ts
echo "ts bundler: types resolve (tsc exit 0)"

step "esbuild $ESBUILD_VERSION: bundle smoke-app.mjs with worker=shale/worker beside it, run the bundle"
npx esbuild smoke-app.mjs worker=shale/worker --bundle --platform=node --format=esm --outdir=bundle --log-level=warning
# ESM output in a CommonJS project: the output folder says so (or use .mjs names).
echo '{ "type": "module" }' >bundle/package.json
node bundle/smoke-app.js "$WORK/db-bundle"
step "esbuild --platform=browser: bundle an app on MemoryFileSystem (no stubs)"
cat >browser-app.mjs <<'JS'
import { MemoryFileSystem, open } from "shale";
const db = await open("/db", { fs: new MemoryFileSystem() });
db.put("a", "1");
await db.flush();
console.log("browser bundle (run in node):", new TextDecoder().decode(db.get("a")));
await db.close();
JS
npx esbuild browser-app.mjs --bundle --platform=browser --format=esm --outfile=browser/app.js --metafile=browser/meta.json --log-level=warning
echo '{ "type": "module" }' >browser/package.json
if grep -q '"node:' browser/meta.json; then echo "the browser bundle imports node: modules" >&2; exit 1; fi
node browser/app.js

step "README examples, as the READMEs say: each saved as example.mts in this (CommonJS) project, npx tsx example.mts"
node - "$ROOT" <<'JS'
const { readdirSync, readFileSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");
const root = process.argv[2];
for (const d of readdirSync(join(root, "packages"))) {
  const readme = readFileSync(join(root, "packages", d, "README.md"), "utf8");
  let i = 0;
  // `<!-- example-needs: nats-server -->` before a block: it runs beside a JetStream server.
  for (const m of readme.matchAll(/(<!-- example-needs: nats-server -->\n)?```ts\n([\s\S]*?)```/g))
    writeFileSync(`readme-${d}-${++i}${m[1] ? ".nats" : ""}.mts`, m[2]);
}
JS
# Starts nats-server -js on a free loopback port (NATS_URL, NATS_PID); fails if it is not ready in 20 s.
start_nats() {
  local port store
  port=$(node -e 'const s=require("node:net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  store=$(mktemp -d)
  nats-server -js -a 127.0.0.1 -p "$port" -sd "$store" >"$store.log" 2>&1 &
  NATS_PID=$!
  for _ in $(seq 200); do grep -q "Server is ready" "$store.log" && break; sleep 0.1; done
  grep -q "Server is ready" "$store.log" || { cat "$store.log" >&2; return 1; }
  export NATS_URL="nats://127.0.0.1:$port"
}
for f in readme-*.mts; do
  mkdir -p "run-${f%.mts}" && cp "$f" "run-${f%.mts}/example.mts"
  NATS_PID=""
  if [[ "$f" == *.nats.mts ]]; then
    if ! command -v nats-server >/dev/null; then
      echo "readme: $f skipped (it needs nats-server, which is not on the PATH)"
      continue
    fi
    start_nats
  fi
  (cd "run-${f%.mts}" && npx tsx example.mts >/dev/null) || { echo "README example $f failed" >&2; exit 1; }
  [ -n "$NATS_PID" ] && kill "$NATS_PID"
  echo "readme: $f ran (npx tsx example.mts)"
done

step "Bun $BUN_VERSION (npx -y bun@$BUN_VERSION): bun smoke-app.mjs"
npx -y "bun@$BUN_VERSION" smoke-app.mjs "$WORK/db-bun"

step "Deno $DENO_VERSION (npx -y deno@$DENO_VERSION): deno run --allow-read --allow-write smoke-app.mjs (no --allow-env)"
npx -y "deno@$DENO_VERSION" run --allow-read --allow-write smoke-app.mjs "$WORK/db-deno"

step "all passed"
