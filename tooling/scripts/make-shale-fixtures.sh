#!/usr/bin/env bash
# Regenerates shale's own binary fixtures (packages/db/testdata/shale/: tables, a log, a
# MANIFEST, every id and time pinned) from packages/db/src/shale-fixtures.test.ts, which
# also checks them byte for byte in every test run. Run after a deliberate format change and
# review the diff: `git diff --stat packages/db/testdata/shale`.
set -euo pipefail
cd "$(dirname "$0")/../../packages/db"
SHALE_REWRITE=1 npx vitest run src/shale-fixtures.test.ts
git status --short -- testdata/shale
