#!/usr/bin/env bash
# shale's randomtransaction against RocksDB C++ on the same flags: the performance target
# "optimistic transactions of 4 reads + 4 writes within 1.5x of RocksDB C++".
#
# Debian's db_bench 7.8.3 is a debug build, so the RocksDB side is randomtransaction.cc
# (beside this script), compiled here with g++ -O2 against the release library
# (librocksdb-dev: /usr/include/rocksdb, -lrocksdb) into dist/randomtransaction-rocksdb,
# again whenever the source is newer. For each kind (optimistic: --optimistic_transaction_db,
# pessimistic: --transaction_db) and each of --rounds rounds it runs, alternately:
#   rocksdb-db_bench  RocksDB C++, db_bench's own randomtransaction (Get or GetForUpdate,
#                     SingleDelete/Delete + Put of a decimal sum, 2PC prepare for 9 in 10
#                     pessimistic ones, 1 in 20 rolled back)
#   rocksdb-shale     RocksDB C++, shale's db-bench workload (GetForUpdate + Put of an 8-byte
#                     counter per key; every transaction committed): the like-for-like peer
#   shale             shale's db-bench (node dist/main.js --engines=shale)
# and prints each run's db_bench line, then the median micros/op per side and the ratio
# shale / rocksdb-shale (the target: <= 1.5 optimistic).
#
# Usage: vs-rocksdb-transactions.sh [--rounds=1] [-- flags for all]
#   e.g. vs-rocksdb-transactions.sh --rounds=3 -- --num=1000000 --transaction_sets=4
# Defaults: --num=100000 --transaction_sets=4 (flags after `--` come later and win).
# Shared flags: --num, --reads, --transaction_sets, --sync, --disable_wal,
# --write_buffer_size, --compression_type, --key_size, --seed. Needs g++, librocksdb-dev and a
# built apps/db-bench (npx -y pnpm@10.34.8 build). Figures mean something only on a quiet
# machine.
set -euo pipefail
app="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds=1
while [ $# -gt 0 ]; do
  case "$1" in
  --rounds=*) rounds="${1#--rounds=}" ;;
  --help | -h)
    sed -n '2,27p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  --) shift; break ;;
  *) echo "vs-rocksdb-transactions.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done
main="${SHALE_DB_BENCH:-$app/dist/main.js}"
if [ ! -f "$main" ]; then
  echo "vs-rocksdb-transactions.sh: $main is missing (run npx -y pnpm@10.34.8 build)" >&2
  exit 2
fi
if [ ! -f /usr/include/rocksdb/utilities/transaction_db.h ]; then
  echo "vs-rocksdb-transactions.sh: RocksDB's headers are missing (apt-get install -y librocksdb-dev)" >&2
  exit 2
fi
src="$app/scripts/randomtransaction.cc"
bin="$app/dist/randomtransaction-rocksdb"
if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
  echo "compiling $src (g++ -O2) ..." >&2
  mkdir -p "$app/dist"
  g++ -O2 -std=c++17 -Wall "$src" -o "$bin" -lrocksdb
fi

common=(--num=100000 --transaction_sets=4 "$@")
work="$(mktemp -d "${TMPDIR:-/tmp}/vs-rocksdb-txn.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Prints the micros/op of the randomtransaction line in `$1` (a file of db_bench output).
micros() { awk '/^randomtransaction +:/ { print $3; exit }' "$1"; }
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

for kind in optimistic pessimistic; do
  if [ "$kind" = optimistic ]; then kflag=--optimistic_transaction_db=1; else kflag=--transaction_db=1; fi
  for round in $(seq 1 "$rounds"); do
    for side in rocksdb-db_bench rocksdb-shale shale; do
      out="$work/$kind-$side-$round.txt"
      case "$side" in
      rocksdb-db_bench) "$bin" --semantics=db_bench "$kflag" "${common[@]}" >"$out" ;;
      rocksdb-shale) "$bin" --semantics=shale "$kflag" "${common[@]}" >"$out" ;;
      shale) node "$main" --engines=shale --benchmarks=randomtransaction "$kflag" "${common[@]}" >"$out" 2>/dev/null ;;
      esac
      if [ "$side" != shale ] && ! grep -q "RandomTransactionVerify Success" "$out"; then
        echo "vs-rocksdb-transactions.sh: $side ($kind) failed its verification:" >&2
        cat "$out" >&2
        exit 1
      fi
      printf '%-12s %-17s round %s: %s\n' "$kind" "$side" "$round" "$(grep '^randomtransaction' "$out")"
    done
  done
done

echo
printf '%-12s %14s %14s %14s %16s\n' kind rocksdb-db_bench rocksdb-shale shale "shale/rocksdb"
for kind in optimistic pessimistic; do
  row=()
  for side in rocksdb-db_bench rocksdb-shale shale; do
    row+=("$(for f in "$work/$kind-$side-"*.txt; do micros "$f"; done | median)")
  done
  ratio="$(awk -v s="${row[2]}" -v r="${row[1]}" 'BEGIN { if (r > 0) printf "%.2f", s / r; else print "-" }')"
  printf '%-12s %14s %14s %14s %16s\n' "$kind" "${row[0]}" "${row[1]}" "${row[2]}" "$ratio"
done
echo "(micros/op, medians of $rounds round(s); the target: optimistic shale/rocksdb <= 1.5)"
