#!/usr/bin/env bash
# shale's db-bench against RocksDB's own C++ db_bench on the same flags and the same sequence.
#
# Runs both alternately (RocksDB, shale, RocksDB, shale, ...) for --rounds rounds, each in a
# fresh directory, takes every workload's median micros/op per engine and prints a table
# with the ratio shale / RocksDB (below 1: shale is faster). A second phase (--reopen) runs
# the read workloads again with --use_existing_db on the directory the fill left, so the
# reads after a reopen are compared too. With --same-tree, shale also runs those reads on a
# copy of the directory RocksDB's run left (phase "same-tree"), so the two read one tree;
# the RocksDB column of that phase is its own reopen's. That reopen flushes the replayed WAL
# to L0 (db_bench's default avoid_flush_during_recovery=0), which on the default workload
# brings L0 to its compaction trigger, and reads the single table the compaction writes;
# shale's same-tree run opens the copy the same way (--avoid_flush_during_recovery=false), so
# its reads find that tree too rather than the replayed memtable and the tables as left.
#
# Usage: vs-rocksdb.sh [--rounds=3] [--reopen] [--same-tree] [--markdown] [-- flags for both]
#   e.g. vs-rocksdb.sh --rounds=3 -- --num=1000000
# Flags after `--` are passed to both tools; the defaults below are the issue's workload
# (1M keys x 100 B, snappy, bloom 10, 32 MiB cache, seek_nexts 10 for both — RocksDB's own
# default is 0, db-bench's is 10).
# Needs RocksDB's db_bench on the PATH (Debian: apt-get install -y rocksdb-tools) and a
# built apps/db-bench (npx -y pnpm@10.34.8 build).
#
# Differences that stay: RocksDB's readwhilewriting writes from a second thread, db-bench
# interleaves one write per 10 reads on the one JavaScript thread; RocksDB's compactions use
# its background threads, shale's its worker threads. Both use 2 cores here.
set -euo pipefail
app="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds=3
reopen=0
same_tree=0
markdown=0
while [ $# -gt 0 ]; do
  case "$1" in
  --rounds=*) rounds="${1#--rounds=}" ;;
  --reopen) reopen=1 ;;
  --same-tree) reopen=1; same_tree=1 ;;
  --markdown) markdown=1 ;;
  --help | -h)
    sed -n '2,26p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  --) shift; break ;;
  *) echo "vs-rocksdb.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done
if ! command -v db_bench >/dev/null; then
  echo "vs-rocksdb.sh: RocksDB's db_bench is not on the PATH (apt-get install -y rocksdb-tools)" >&2
  exit 2
fi
main="${SHALE_DB_BENCH:-$app/dist/main.js}"
if [ ! -f "$main" ]; then
  echo "vs-rocksdb.sh: $main is missing (run npx -y pnpm@10.34.8 build)" >&2
  exit 2
fi

fills="fillseq,fillrandom,overwrite"
reads="readrandom,readseq,readreverse,seekrandom,readwhilewriting"
common=(--num=1000000 --value_size=100 --key_size=16 --compression_type=snappy
  --compression_ratio=0.5 --bloom_bits=10 --cache_size=33554432 --seek_nexts=10
  --write_buffer_size=67108864 --block_size=4096 --threads=1 "$@")
benchmarks="$fills,$reads"
for a in "$@"; do
  case "$a" in --benchmarks=*) benchmarks="${a#--benchmarks=}" ;; esac
done

work="$(mktemp -d "${TMPDIR:-/tmp}/vs-rocksdb.XXXXXX")"
trap 'rm -rf "$work"' EXIT
results="$work/results.tsv" # phase engine benchmark micros
: >"$results"

# Prints "<benchmark> <micros/op>" for each workload line of either tool's output.
parse() {
  awk '/^[a-z0-9_]+ +: +[0-9.]+ micros\/op/ { print $1, $3 }'
}

run_rocksdb() { # dir phase benchmarks [extra]
  local dir="$1" phase="$2" list="$3"
  shift 3
  db_bench --db="$dir" --benchmarks="$list" "${common[@]}" --statistics=0 "$@" 2>/dev/null |
    parse | while read -r b m; do printf '%s\trocksdb\t%s\t%s\n' "$phase" "$b" "$m"; done >>"$results"
}

run_shale() { # dir phase benchmarks [extra]
  local dir="$1" phase="$2" list="$3"
  shift 3
  # RocksDB's db_bench does not warm the block cache (prepopulate_block_cache=0): neither here.
  node "$main" --engines=shale --db="$dir" --benchmarks="$list" "${common[@]}" \
    --prepopulate_block_cache=disable "$@" 2>/dev/null |
    parse | while read -r b m; do printf '%s\tshale\t%s\t%s\n' "$phase" "$b" "$m"; done >>"$results"
}

# Keeps only the benchmarks of $2 that are reads (for the reopen phase).
reads_of() {
  local out="" b
  IFS=, read -ra bs <<<"$1"
  for b in "${bs[@]}"; do
    case ",$reads," in *",$b,"*) out="${out:+$out,}$b" ;; esac
  done
  echo "$out"
}

for r in $(seq 1 "$rounds"); do
  for engine in rocksdb shale; do
    dir="$work/$engine-$r"
    echo "round $r/$rounds: $engine" >&2
    "run_$engine" "$dir" run "$benchmarks"
    rl="$(reads_of "$benchmarks")"
    if [ "$same_tree" = 1 ] && [ -n "$rl" ]; then
      # The tree RocksDB's reopen reads, copied before that reopen's readwhilewriting writes.
      [ "$engine" = rocksdb ] && cp -r "$dir" "$work/rocksdb-tree-$r"
      if [ "$engine" = shale ]; then
        run_shale "$work/rocksdb-tree-$r" same-tree "$rl" --use_existing_db=1 \
          --avoid_flush_during_recovery=false
        rm -rf "$work/rocksdb-tree-$r"
      fi
    fi
    if [ "$reopen" = 1 ] && [ -n "$rl" ]; then
      "run_$engine" "$dir" reopen "$rl" --use_existing_db=1
    fi
    rm -rf "$dir"
  done
done
if [ "$same_tree" = 1 ]; then
  awk -F'\t' -v OFS='\t' '$1 == "reopen" && $2 == "rocksdb" { print "same-tree", $2, $3, $4 }' \
    "$results" >>"$results"
fi

# The table: median micros/op per (phase, benchmark, engine) and shale / rocksdb.
node - "$results" "$markdown" "$rounds" "${common[*]}" <<'EOF'
const [file, markdown, rounds, flags] = process.argv.slice(2);
const fs = require("node:fs");
const rows = fs.readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((l) => l.split("\t"));
const groups = new Map();
const order = [];
for (const [phase, engine, bench, micros] of rows) {
  const key = `${phase}\t${bench}`;
  if (!groups.has(key)) { groups.set(key, { rocksdb: [], shale: [] }); order.push(key); }
  groups.get(key)[engine].push(Number(micros));
}
const median = (xs) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const out = [];
const md = markdown === "1";
out.push(`# shale db-bench vs RocksDB db_bench ${md ? "" : "(micros/op, median of " + rounds + ")"}`.trim());
out.push(`# flags: ${flags}`);
if (md) out.push("", `| phase | benchmark | RocksDB µs/op | shale µs/op | shale / RocksDB |`, `|---|---|---:|---:|---:|`);
else out.push(`${"phase".padEnd(7)} ${"benchmark".padEnd(17)} ${"rocksdb".padStart(10)} ${"shale".padStart(10)} ${"ratio".padStart(7)}`);
for (const key of order) {
  const [phase, bench] = key.split("\t");
  const g = groups.get(key);
  const r = median(g.rocksdb);
  const s = median(g.shale);
  const ratio = (s / r).toFixed(2);
  if (md) out.push(`| ${phase} | ${bench} | ${r.toFixed(3)} | ${s.toFixed(3)} | ${ratio}x |`);
  else out.push(`${phase.padEnd(7)} ${bench.padEnd(17)} ${r.toFixed(3).padStart(10)} ${s.toFixed(3).padStart(10)} ${(ratio + "x").padStart(7)}`);
}
console.log(out.join("\n"));
EOF
