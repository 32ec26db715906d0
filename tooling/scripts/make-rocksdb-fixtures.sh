#!/usr/bin/env bash
# Writes the RocksDB-made fixtures that shale's tests read (checked in, so the reading side is
# tested on every machine, with or without RocksDB's tools):
#
#   packages/sstable/testdata/rocksdb-compression/<codec>.sst
#       one table per block compression RocksDB offers here (none, snappy, zlib, bzip2, lz4,
#       lz4hc, zstd), all holding the same 300 db_bench entries (fillseq, seed 1): the same
#       data blocks, so each codec's decoded blocks must equal none.sst's.
#   packages/db/testdata/rocksdb/<name>/
#       small databases (see packages/db/testdata/rocksdb/README.md), each with
#       expected.jsonl: `ldb scan --hex` of its default column family as JSON lines
#       {"key":"<hex>","value":"<hex>"}, in key order.
#
# Needs RocksDB's tools (Debian: apt-get install -y rocksdb-tools; made with 7.8.3). Run from
# anywhere: bash tooling/scripts/make-rocksdb-fixtures.sh [all|compression|databases|codecs]
# (default all; codecs: only the databases compress-zlib, compress-lz4, compress-lz4hc). The output is deterministic up to
# the ids, timestamps and host names RocksDB writes into MANIFEST, OPTIONS and table
# properties.
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in db_bench ldb sst_dump; do
  command -v "$tool" >/dev/null || { echo "make-rocksdb-fixtures: $tool not on the PATH" >&2; exit 1; }
done

WHAT=${1:-all}
case "$WHAT" in all | compression | databases | codecs) ;; *) echo "usage: $0 [all|compression|databases|codecs]" >&2; exit 2 ;; esac
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Keep only what a database needs: no info LOG, no LOCK.
tidy() {
  rm -f "$1"/LOG "$1"/LOG.old.* "$1"/LOCK
}

# expected.jsonl: ldb's hex scan ("0xKEY : 0xVALUE" lines) as JSON lines, lower-case hex.
dump_expected() {
  ldb --db="$1" --hex scan | awk -F ' : ' '
    /^0x/ { k = tolower(substr($1, 3)); v = tolower(substr($2, 3));
            printf "{\"key\":\"%s\",\"value\":\"%s\"}\n", k, v }' >"$1/expected.jsonl"
}

# --- compression tables ---------------------------------------------------------------------
COMP=packages/sstable/testdata/rocksdb-compression
if [ "$WHAT" = all ] || [ "$WHAT" = compression ]; then
rm -rf "$COMP"
mkdir -p "$COMP"
for codec in none snappy zlib bzip2 lz4 lz4hc zstd; do
  db_bench --benchmarks=fillseq,compact --num=300 --seed=1 --compression_type="$codec" \
    --db="$WORK/c-$codec" >/dev/null
  tables=("$WORK/c-$codec"/*.sst)
  [ "${#tables[@]}" = 1 ] || { echo "expected one table for $codec" >&2; exit 1; }
  cp "${tables[0]}" "$COMP/$codec.sst"
done
fi
[ "$WHAT" = compression ] && { du -sh "$COMP"; exit 0; }

# --- databases ------------------------------------------------------------------------------
OUT=packages/db/testdata/rocksdb
mkdir -p "$OUT"

# compress-<codec>: 200 db_bench entries (fillrandom, compacted to one table) whose data and
# index blocks use zlib, lz4 or lz4hc, then 10 overwrites left in the WAL.
for codec in zlib lz4 lz4hc; do
  db=$OUT/compress-$codec
  rm -rf "$db"
  db_bench --benchmarks=fillrandom,compact --num=200 --seed=1 --compression_type="$codec" \
    --db="$db" >/dev/null
  db_bench --benchmarks=overwrite --use_existing_db --num=10 --seed=2 \
    --compression_type="$codec" --db="$db" >/dev/null
  dump_expected "$db"
  tidy "$db"
done
[ "$WHAT" = codecs ] && { du -sh "$OUT"/compress-*; exit 0; }
DATABASES="fillrandom put-delete delete-range merge-uint64add column-families partitioned first-key-index"
for name in $DATABASES; do
  rm -rf "${OUT:?}/$name"
done

# fillrandom: 300 db_bench entries (16-byte keys, 100-byte values), Bloom filter 10 bits/key,
# snappy, compacted to the last level; then 20 overwrites left in the WAL.
db=$OUT/fillrandom
db_bench --benchmarks=fillrandom,compact --num=300 --seed=1 --bloom_bits=10 \
  --compression_type=snappy --db="$db" >/dev/null
db_bench --benchmarks=overwrite --use_existing_db --num=20 --seed=2 --bloom_bits=10 \
  --compression_type=snappy --db="$db" >/dev/null

# put-delete: ldb puts, a compaction (memtable -> table), then deletes and puts in the WAL.
db=$OUT/put-delete
ldb --db="$db" --create_if_missing put apple red >/dev/null
for k in banana cherry date elderberry fig grape; do ldb --db="$db" put "$k" "v-$k" >/dev/null; done
ldb --db="$db" compact >/dev/null
ldb --db="$db" delete cherry >/dev/null
ldb --db="$db" put date "v-date-2" >/dev/null
ldb --db="$db" delete zzz-never-written >/dev/null
# Each ldb run flushes the WAL it recovers, so only this last batch stays in the WAL.
ldb --db="$db" batchput honeydew v-honeydew kiwi v-kiwi apple green >/dev/null

# Table checksums: db_bench's default is XXH3 (4); delete-range's first table uses CRC32C (1)
# and merge-uint64add's xxHash64 (3); ldb's tables use XXH3.
# delete-range: 200 db_bench keys with a range tombstone (width 10) every 40 writes, flushed to
# an L0 table (tombstones in its range-deletion block, covered keys still there); then an
# ldb deleterange and puts in the WAL.
db=$OUT/delete-range
db_bench --benchmarks=fillseq,flush --num=200 --seed=1 --writes_per_range_tombstone=40 \
  --range_tombstone_width=10 --max_num_range_tombstones=5 --compression_type=none \
  --checksum_type=1 --db="$db" >/dev/null
ldb --db="$db" --hex deleterange 0x0000000000000064 0x0000000000000078 >/dev/null
ldb --db="$db" put after-range "written after the range deletions" >/dev/null

# merge-uint64add: db_bench merges of 8-byte little-endian operands with uint64add over 50
# keys: a flushed table of merge operands, then more merges in the WAL.
db=$OUT/merge-uint64add
db_bench --benchmarks=mergerandom,flush --merge_operator=uint64add --num=50 --seed=1 \
  --value_size=8 --compression_type=none --checksum_type=3 --db="$db" >/dev/null
db_bench --benchmarks=mergerandom --use_existing_db --merge_operator=uint64add --num=50 \
  --seed=2 --value_size=8 --compression_type=none --db="$db" >/dev/null

# column-families: three families (default, cf1, cf2): tables in each from ldb's compactions,
# then a batch into cf2 left in the WAL (the last ldb run: its records carry cf2's id,
# kTypeColumnFamilyValue; one overwrites a key of cf2's table).
db=$OUT/column-families
ldb --db="$db" --create_if_missing put default-key default-value >/dev/null
ldb --db="$db" create_column_family cf1 >/dev/null
ldb --db="$db" create_column_family cf2 >/dev/null
ldb --db="$db" --column_family=cf1 put cf1-key cf1-value >/dev/null
ldb --db="$db" --column_family=cf1 put cf1-key2 cf1-value2 >/dev/null
ldb --db="$db" --column_family=cf2 put cf2-key cf2-value >/dev/null
ldb --db="$db" put default-key2 default-value2 >/dev/null
ldb --db="$db" compact >/dev/null
ldb --db="$db" --column_family=cf1 compact >/dev/null
ldb --db="$db" --column_family=cf2 compact >/dev/null
ldb --db="$db" --column_family=cf2 batchput cf2-wal1 in-the-wal cf2-key cf2-value-2 >/dev/null

# partitioned: db_bench's random fill with partitioned index and filters (128-byte
# partitions: four index partitions), snappy, compacted; then 20 overwrites left in the WAL.
db=$OUT/partitioned
db_bench --benchmarks=fillrandom,compact --num=300 --seed=1 --bloom_bits=10 \
  --value_size=32 --compression_type=snappy --partition_index_and_filters=1 \
  --metadata_block_size=128 --block_size=512 --db="$db" >/dev/null
db_bench --benchmarks=overwrite --use_existing_db --num=20 --seed=2 --bloom_bits=10 \
  --value_size=32 --compression_type=snappy --partition_index_and_filters=1 \
  --metadata_block_size=128 --block_size=512 --db="$db" >/dev/null

# first-key-index: db_bench's sequential fill with the first key of each data block in the
# index (kBinarySearchWithFirstKey), flushed.
db=$OUT/first-key-index
db_bench --benchmarks=fillseq,flush --num=200 --seed=1 --value_size=32 --index_with_first_key=1 \
  --compression_type=none --block_size=512 --db="$db" >/dev/null

# atomic-flush: db_bench over three column families with atomic_flush=true (from an OPTIONS
# file: 7.8.3's db_bench has no --atomic_flush flag): a fill flushed, then overwrites flushed
# (the MANIFEST this run writes ends with that flush's atomic group: one edit per family and
# RocksDB's MinLogNumberToKeep edit, InAtomicGroup 3..0) and overwrites left in the WAL.
db=$OUT/atomic-flush
rm -rf "$db"
cat >"$WORK/atomic-flush.ini" <<'INI'
[Version]
  rocksdb_version=7.8.3
  options_file_version=1.1

[DBOptions]
  atomic_flush=true
  create_if_missing=true
  create_missing_column_families=true

[CFOptions "default"]
  disable_auto_compactions=true
  compression=kNoCompression

[TableOptions/BlockBasedTable "default"]
INI
db_bench --benchmarks=fillseq,flush --options_file="$WORK/atomic-flush.ini" --num_column_families=3 \
  --num=60 --value_size=16 --seed=1 --db="$db" >/dev/null
db_bench --benchmarks=overwrite,flush,overwrite --options_file="$WORK/atomic-flush.ini" \
  --num_column_families=3 --num=20 --value_size=16 --seed=2 --use_existing_db --db="$db" >/dev/null

for name in $DATABASES; do
  dump_expected "$OUT/$name"
  tidy "$OUT/$name"
done
# Scanned on a copy: the fixture keeps the MANIFEST db_bench wrote, with its atomic group.
rm -rf "$WORK/atomic-flush-scan"
cp -r "$OUT/atomic-flush" "$WORK/atomic-flush-scan"
for cf in default column_family_name_000001 column_family_name_000002; do
  suffix=$([ "$cf" = default ] && echo "" || echo "-$cf")
  ldb --db="$WORK/atomic-flush-scan" --column_family=$cf --hex scan | awk -F ' : ' '
    /^0x/ { printf "{\"key\":\"%s\",\"value\":\"%s\"}\n", tolower(substr($1, 3)), tolower(substr($2, 3)) }' \
    >"$OUT/atomic-flush/expected$suffix.jsonl"
done
tidy "$OUT/atomic-flush"
for cf in cf1 cf2; do
  ldb --db="$OUT/column-families" --column_family=$cf --hex scan | awk -F ' : ' '
    /^0x/ { printf "{\"key\":\"%s\",\"value\":\"%s\"}\n", tolower(substr($1, 3)), tolower(substr($2, 3)) }' \
    >"$OUT/column-families/expected-$cf.jsonl"
done
tidy "$OUT/column-families"
du -sh "$OUT"/*
