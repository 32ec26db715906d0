#!/usr/bin/env bash
# Runs a db-bench seed experiment (src/seeds/<name>.ts) from its build, building the app
# first when the build is missing or older than a source file of the app (tests aside).
# Usage: run.sh <name> [options] [-- db-bench flags]
set -euo pipefail
app="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
name="$1"
shift
js="$app/dist/seeds/$name.js"
built="$app/dist/.tsbuildinfo" # tsc -b rewrites it whenever it rebuilds the app
if [ ! -f "$js" ] || [ ! -f "$built" ] ||
  [ -n "$(find "$app/src" -name '*.ts' ! -name '*.test.ts' ! -path '*/src/test/*' -newer "$built" -print -quit)" ]; then
  echo "building apps/db-bench (tsc -b) ..." >&2
  (cd "$app" && npx tsc -b)
fi
exec node "$js" "$@"
