#!/usr/bin/env bash
# --threads=1 against --threads=2 (and more) for readrandom, on one database per engine
# filled once (fillrandom, then waitforcompaction where the engine has one), then read with
# --use_existing_db: the thread counts alternate, ROUNDS times, and the medians of ops/sec
# and their ratio to one thread are printed. Run after `pnpm build`.
#
#   reader-threads.sh [ENGINES] [NUM] [READS] [ROUNDS] [THREADS...]
#   defaults:          shale,lmdb 1000000 300000 3 1 2
#   FLAGS="--cache_size=-1" reader-threads.sh ...   passes more flags to every run
#   a thread count written wN (w1) runs N readers in worker threads (--worker_readers):
#   w1 is one worker reader, where 1 reads on the main thread's database
#   a thread count written sN (s2, sw1) runs with --shared_block_cache (shale): the database
#   and its worker readers share one block cache for their gets' data blocks
#
# The machine's load (uptime) is printed before and after: on a shared machine compare the
# ratios, not the absolute figures.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
engines="${1:-shale,lmdb}"
num="${2:-1000000}"
reads="${3:-300000}"
rounds="${4:-3}"
shift $(( $# < 4 ? $# : 4 ))
threads=("$@")
[ ${#threads[@]} -eq 0 ] && threads=(1 2)
base="$(mktemp -d -t reader-threads.XXXXXX)"
trap 'rm -rf "$base"' EXIT
read -r -a extra <<< "${FLAGS:-}"
bench() { node "$here/dist/main.js" "${extra[@]}" "$@"; }
echo "load before: $(uptime)"
IFS=, read -r -a list <<< "$engines"
for engine in "${list[@]}"; do
  fill=fillrandom
  [ "$engine" = shale ] && fill=fillrandom,waitforcompaction
  bench --engines="$engine" --db="$base/$engine" --num="$num" --benchmarks="$fill" >/dev/null
  declare -A got=()
  for ((r = 1; r <= rounds; r++)); do
    for t in "${threads[@]}"; do
      count="${t#s}"
      workers=()
      [ "$count" != "$t" ] && workers=(--shared_block_cache)
      [ "${count#w}" != "$count" ] && workers+=(--worker_readers)
      count="${count#w}"
      line="$(bench --engines="$engine" --db="$base/$engine" --use_existing_db --num="$num" \
        --reads="$reads" --benchmarks=readrandom --threads="$count" ${workers[@]+"${workers[@]}"} | grep '^readrandom')"
      ops="$(sed -E 's/.* ([0-9]+) ops\/sec.*/\1/' <<< "$line")"
      echo "$engine round $r threads $t: $ops ops/sec"
      got[$t]="${got[$t]:-} $ops"
    done
  done
  median() { tr ' ' '\n' <<< "$1" | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
  one="$(median "${got[${threads[0]}]}")"
  for t in "${threads[@]}"; do
    m="$(median "${got[$t]}")"
    echo "$engine threads=$t median $m ops/sec ($(awk -v a="$m" -v b="$one" 'BEGIN {printf "%.2f", a / b}')x of threads=${threads[0]})"
  done
  unset got
done
echo "load after: $(uptime)"
