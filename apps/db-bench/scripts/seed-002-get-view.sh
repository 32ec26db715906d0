#!/usr/bin/env bash
# Seed 002: readrandom through getView (zero copy) vs readrandomcopy through get (a copy).
# Options: seed-002-get-view.sh --help (see also apps/db-bench/README.md, "Seed experiments").
exec "$(dirname "${BASH_SOURCE[0]}")/run.sh" seed-002-get-view "$@"
