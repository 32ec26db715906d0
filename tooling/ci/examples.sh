#!/usr/bin/env bash
# CI: runs every example in examples/ from its own folder against the built packages
# (`pnpm build` builds them, they are workspace packages) and compares what it prints with
# its expected-output.txt; then checks the root README's examples table (packages, lines).
# An example whose output legitimately changes: rerun it and commit the new expected output.
set -euo pipefail
cd "$(dirname "$0")/../.."
status=0
for dir in examples/*/; do
  name=$(basename "$dir")
  [ -f "$dir/package.json" ] || continue
  if [ ! -f "$dir/expected-output.txt" ]; then
    echo "examples/$name: no expected-output.txt" >&2
    status=1
    continue
  fi
  if ! actual=$(cd "$dir" && timeout 120 node dist/main.js 2>&1); then
    echo "examples/$name: failed" >&2
    echo "$actual" >&2
    status=1
    continue
  fi
  if diff -u "$dir/expected-output.txt" <(printf '%s\n' "$actual"); then
    echo "examples/$name: output as expected"
  else
    echo "examples/$name: output differs from expected-output.txt (above)" >&2
    status=1
  fi
done
node tooling/scripts/examples-table.mjs --check || status=1
exit $status
