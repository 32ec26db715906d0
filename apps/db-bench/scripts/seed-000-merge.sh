#!/usr/bin/env bash
# Seed 000: readseq over max-merge operands (one per key, compacted), --statistics off vs on.
# Options: seed-000-merge.sh --help (see also apps/db-bench/README.md, "Seed experiments").
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" seed-000-merge "$@"
