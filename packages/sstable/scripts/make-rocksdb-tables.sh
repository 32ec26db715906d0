#!/usr/bin/env bash
# Regenerates packages/sstable/testdata/rocksdb-tables/*.sst with RocksDB 7.8.3's own table
# writer (librocksdb-dev: `apt-get install -y librocksdb-dev`). What each table holds:
# scripts/rocksdb-tables.cc.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/../testdata/rocksdb-tables"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
g++ -O1 -std=c++17 -o "$tmp/rocksdb-tables" "$here/rocksdb-tables.cc" -lrocksdb
mkdir -p "$out"
rm -f "$out"/*.sst
"$tmp/rocksdb-tables" "$out"
ls -l "$out"
# RocksDB's BytewiseComparator::FindShortestSeparator on 400 pseudo-random pairs.
g++ -O1 -std=c++17 -o "$tmp/bytewise-separators" "$here/bytewise-separators.cc" -lrocksdb
"$tmp/bytewise-separators" > "$here/../testdata/bytewise-separators.json"
