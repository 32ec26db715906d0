#!/usr/bin/env bash
# mergerandom and readrandommergerandom at a given --num, --statistics off vs on.
# Options: merge-bench.sh --help (see also apps/db-bench/README.md, "Seed experiments").
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" merge-bench "$@"
