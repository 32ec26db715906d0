#!/usr/bin/env bash
# Seed 001 (RocksDB PR 4493): readrandom / readwhilewriting with none, expanded and unexpanded range tombstones.
# Options: seed-001-range-del.sh --help (see also apps/db-bench/README.md, "Seed experiments").
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" seed-001-range-del "$@"
