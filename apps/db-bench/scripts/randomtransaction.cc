// randomtransaction for RocksDB C++ (the peer of shale's db-bench randomtransaction).
//
// Debian's db_bench (rocksdb-tools 7.8.3) is a debug build (assertions on, -O0-ish), so its
// figures say nothing about RocksDB's speed. This program runs db_bench's randomtransaction
// workload on the release library (librocksdb-dev, built -O2) and reports it in db_bench's
// format:
//
//   randomtransaction :      12.345 micros/op 81004 ops/sec 1.235 seconds 100000 operations;    1.2 MB/s ( transactions:100000 aborts:0)
//
// Build and run (vs-rocksdb-transactions.sh does both, next to shale's db-bench):
//   g++ -O2 -std=c++17 randomtransaction.cc -o randomtransaction -lrocksdb
//   ./randomtransaction --num=100000 --transaction_sets=4 --optimistic_transaction_db=1
//
// Workloads (--semantics):
//   db_bench (default): RocksDB's RandomTransactionInserter::DoInsert, as db_bench runs it
//     with --threads=1: per transaction an increment 1..100; the sets in a shuffled order;
//     per set a key "<set+1, 4 digits><random in [0, num)>" read with GetForUpdate (half of
//     the time) or Get, then SingleDelete (Delete for every 4th set) and Put of the decimal
//     sum; pessimistic (--transaction_db) transactions are named, take a snapshot (always
//     without --transaction_set_snapshot, else half of the time), and 9 in 10 are prepared
//     (two-phase commit) before the commit; 1 in 20 is rolled back instead of committed.
//     Afterwards every set must sum to the same total (RandomTransactionVerify).
//   shale: shale's db-bench randomtransaction: per transaction `transaction_sets` keys of
//     --key_size bytes (the key number big-endian in the first 8 bytes, '0' after), each
//     read with GetForUpdate and written back as its 8-byte little-endian counter + 1, then
//     committed. Afterwards the counters must sum to committed transactions x sets.
//
// Flags (db_bench's names and defaults where db_bench has them): --db, --use_existing_db,
// --num (1000000), --reads (-1: num transactions), --transaction_sets (2),
// --optimistic_transaction_db, --transaction_db (neither: optimistic, as shale's db-bench),
// --transaction_lock_timeout (100 ms), --transaction_set_snapshot (0), --sync, --disable_wal,
// --write_buffer_size (64 MiB), --compression_type (snappy), --key_size (16; shale
// semantics), --seed (301), --semantics (db_bench).
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/utilities/optimistic_transaction_db.h>
#include <rocksdb/utilities/transaction.h>
#include <rocksdb/utilities/transaction_db.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

using namespace ROCKSDB_NAMESPACE;

namespace {

struct Flags {
  std::string db;
  bool use_existing_db = false;
  int64_t num = 1000000;
  int64_t reads = -1;
  int transaction_sets = 2;
  bool optimistic = false;
  bool pessimistic = false;
  int64_t lock_timeout = 100;
  bool set_snapshot = false;
  bool sync = false;
  bool disable_wal = false;
  size_t write_buffer_size = 64 << 20;
  std::string compression = "snappy";
  int key_size = 16;
  uint64_t seed = 301;
  std::string semantics = "db_bench";
};

[[noreturn]] void Fail(const std::string& what, const Status& s = Status::OK()) {
  std::fprintf(stderr, "randomtransaction: %s%s%s\n", what.c_str(), s.ok() ? "" : ": ",
               s.ok() ? "" : s.ToString().c_str());
  std::exit(1);
}

bool ParseBool(const std::string& v) { return v == "1" || v == "true" || v.empty(); }

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; i++) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) Fail("unexpected argument " + arg);
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const std::string v = eq == std::string::npos ? "" : arg.substr(eq + 1);
    if (name == "db") f.db = v;
    else if (name == "use_existing_db") f.use_existing_db = ParseBool(v);
    else if (name == "num") f.num = std::stoll(v);
    else if (name == "reads") f.reads = std::stoll(v);
    else if (name == "transaction_sets") f.transaction_sets = std::stoi(v);
    else if (name == "optimistic_transaction_db") f.optimistic = ParseBool(v);
    else if (name == "transaction_db") f.pessimistic = ParseBool(v);
    else if (name == "transaction_lock_timeout") f.lock_timeout = std::stoll(v);
    else if (name == "transaction_set_snapshot") f.set_snapshot = ParseBool(v);
    else if (name == "sync") f.sync = ParseBool(v);
    else if (name == "disable_wal") f.disable_wal = ParseBool(v);
    else if (name == "write_buffer_size") f.write_buffer_size = std::stoull(v);
    else if (name == "compression_type") f.compression = v;
    else if (name == "key_size") f.key_size = std::stoi(v);
    else if (name == "seed") f.seed = std::stoull(v);
    else if (name == "semantics") f.semantics = v;
    else if (name == "help") {
      std::printf("randomtransaction: see the comment at the top of randomtransaction.cc\n");
      std::exit(0);
    } else Fail("unknown flag --" + name);
  }
  if (f.optimistic && f.pessimistic)
    Fail("--transaction_db and --optimistic_transaction_db cannot be combined");
  if (!f.pessimistic) f.optimistic = true;
  if (f.num < 1) Fail("--num must be positive");
  if (f.transaction_sets < 1 || f.transaction_sets > 9999)
    Fail("--transaction_sets must be in [1, 9999]");
  if (f.key_size < 8) Fail("--key_size must be >= 8");
  if (f.semantics != "db_bench" && f.semantics != "shale")
    Fail("--semantics must be db_bench or shale");
  if (f.sync && f.disable_wal) Fail("--sync and --disable_wal cannot be combined");
  return f;
}

CompressionType Compression(const std::string& name) {
  if (name == "none") return kNoCompression;
  if (name == "snappy") return kSnappyCompression;
  if (name == "lz4") return kLZ4Compression;
  if (name == "zstd") return kZSTD;
  Fail("unknown --compression_type " + name);
}

// The database, optimistic or pessimistic, and the transaction reused between iterations.
struct Bench {
  Flags f;
  DB* db = nullptr;
  OptimisticTransactionDB* otxn_db = nullptr;
  TransactionDB* ptxn_db = nullptr;
  Transaction* txn = nullptr;
  WriteOptions write_options;
  ReadOptions read_options;
  std::mt19937_64 rand;
  uint64_t txn_id = 0;
  uint64_t aborts = 0;
  uint64_t committed = 0;
  uint64_t bytes = 0;

  explicit Bench(const Flags& flags) : f(flags), rand(flags.seed) {
    write_options.sync = f.sync;
    write_options.disableWAL = f.disable_wal;
  }

  bool OneIn(int n) { return rand() % n == 0; }

  void Begin() {
    if (f.optimistic) {
      txn = otxn_db->BeginTransaction(write_options, OptimisticTransactionOptions(), txn);
    } else {
      TransactionOptions o;
      o.lock_timeout = f.lock_timeout;
      o.set_snapshot = f.set_snapshot;
      txn = ptxn_db->BeginTransaction(write_options, o, txn);
    }
  }

  // db_bench's RandomTransactionInserter::DoInsert (with TransactionDBInsert's naming and
  // snapshot for pessimistic transactions).
  void DbBenchTransaction() {
    Begin();
    if (f.pessimistic) {
      char name[64];
      std::snprintf(name, sizeof(name), "txn0-%" PRIu64, txn_id++);
      Status s = txn->SetName(name);
      if (!s.ok()) Fail("SetName", s);
    }
    ReadOptions ro = read_options;
    bool take_snapshot = false;
    if (f.pessimistic) {
      take_snapshot = txn->GetSnapshot() == nullptr || OneIn(2);
      if (take_snapshot) txn->SetSnapshot();
      ro.snapshot = txn->GetSnapshot();
    }
    const uint64_t incr = rand() % 100 + 1;
    std::vector<uint16_t> sets(f.transaction_sets);
    std::iota(sets.begin(), sets.end(), static_cast<uint16_t>(0));
    std::shuffle(sets.begin(), sets.end(), rand);
    Status s;
    std::string value;
    for (uint16_t set : sets) {
      char prefix[6];
      std::snprintf(prefix, sizeof(prefix), "%.4u", static_cast<unsigned>(set + 1));
      const std::string key = std::string(prefix) + std::to_string(rand() % f.num);
      const bool for_update = OneIn(2);
      s = for_update ? txn->GetForUpdate(ro, key, &value) : txn->Get(ro, key, &value);
      uint64_t current = 0;
      if (s.ok()) {
        current = std::stoull(value);
      } else if (s.IsNotFound()) {
        s = Status::OK();
      } else {
        if (f.optimistic || !(s.IsBusy() || s.IsTimedOut() || s.IsTryAgain())) Fail("Get", s);
        break;
      }
      s = set % 4 != 0 ? txn->SingleDelete(key) : txn->Delete(key);
      if (!for_update && (s.IsBusy() || s.IsTimedOut())) break;
      if (!s.ok()) Fail("SingleDelete", s);
      const std::string sum = std::to_string(current + incr);
      s = txn->Put(key, sum);
      if (!s.ok()) Fail("Put", s);
      bytes += key.size() + sum.size();
    }
    if (s.ok()) {
      if (f.pessimistic && !f.disable_wal && !OneIn(10)) {
        s = txn->Prepare();
        if (!s.ok()) Fail("Prepare", s);
      }
      if (!OneIn(20)) {
        s = txn->Commit();
        if (s.ok()) committed++;
      } else {
        s = txn->Rollback();
        if (!s.ok()) Fail("Rollback", s);
      }
    }
    if (!s.ok()) {
      if (!(s.IsBusy() || s.IsTimedOut() || s.IsTryAgain())) Fail("Commit", s);
      aborts++;
      txn->Rollback();
    }
    if (take_snapshot) txn->ClearSnapshot();
  }

  // shale's db-bench randomtransaction: GetForUpdate + Put(counter + 1) per key.
  void ShaleTransaction() {
    std::vector<std::string> keys(f.transaction_sets);
    for (auto& k : keys) {
      const uint64_t n = rand() % f.num;
      k.assign(f.key_size, '0');
      for (int i = 0; i < 8; i++) k[i] = static_cast<char>((n >> (56 - 8 * i)) & 0xff);
    }
    for (;;) {
      Begin();
      Status s;
      std::string value;
      char counter[8];
      for (const auto& key : keys) {
        s = txn->GetForUpdate(read_options, key, &value);
        uint64_t n = 1;
        if (s.ok() && value.size() == 8) {
          for (int i = 0; i < 8; i++) n += static_cast<uint64_t>(static_cast<uint8_t>(value[i])) << (8 * i);
        } else if (!s.ok() && !s.IsNotFound()) {
          break;
        }
        s = Status::OK();
        for (int i = 0; i < 8; i++) counter[i] = static_cast<char>((n >> (8 * i)) & 0xff);
        s = txn->Put(key, Slice(counter, 8));
        if (!s.ok()) break;
        bytes += key.size() + 8;
      }
      if (s.ok()) s = txn->Commit();
      if (s.ok()) {
        committed++;
        return;
      }
      if (!(s.IsBusy() || s.IsTimedOut() || s.IsTryAgain())) Fail("transaction", s);
      aborts++;
      txn->Rollback();
    }
  }

  // RandomTransactionVerify: every set sums to the same total (db_bench semantics), or the
  // counters sum to committed x sets (shale semantics).
  bool Verify() {
    std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
    if (f.semantics == "shale") {
      uint64_t total = 0;
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        const Slice v = it->value();
        if (v.size() != 8) return false;
        uint64_t n = 0;
        for (int i = 0; i < 8; i++) n += static_cast<uint64_t>(static_cast<uint8_t>(v[i])) << (8 * i);
        total += n;
      }
      return total == committed * static_cast<uint64_t>(f.transaction_sets);
    }
    std::map<std::string, uint64_t> sums;
    for (it->SeekToFirst(); it->Valid(); it->Next())
      sums[it->key().ToString().substr(0, 4)] += std::stoull(it->value().ToString());
    if (committed == 0) return sums.empty();
    if (sums.size() != static_cast<size_t>(f.transaction_sets)) return false;
    for (const auto& [set, sum] : sums)
      if (sum != sums.begin()->second) return false;
    return true;
  }
};

}  // namespace

int main(int argc, char** argv) {
  Bench b(ParseFlags(argc, argv));
  Flags& f = b.f;
  // Without --db: a new temporary directory, removed at the end.
  const bool temporary = f.db.empty();
  if (temporary) {
    const char* tmpdir = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmpdir != nullptr && *tmpdir != 0 ? tmpdir : "/tmp") +
                       "/rocksdb-randomtransaction-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) Fail("mkdtemp failed");
    f.db = tmpl;
  }
  Options options;
  options.create_if_missing = true;
  options.write_buffer_size = f.write_buffer_size;
  options.compression = Compression(f.compression);
  if (!f.use_existing_db) DestroyDB(f.db, options);
  Status s;
  if (f.optimistic) {
    s = OptimisticTransactionDB::Open(options, f.db, &b.otxn_db);
    if (s.ok()) b.db = b.otxn_db->GetBaseDB();
  } else {
    TransactionDBOptions txn_db_options;
    txn_db_options.transaction_lock_timeout = f.lock_timeout;
    s = TransactionDB::Open(options, txn_db_options, f.db, &b.ptxn_db);
    if (s.ok()) b.db = b.ptxn_db;
  }
  if (!s.ok()) Fail("open " + f.db, s);
  std::printf("RocksDB:    version %d.%d.%d (C++, -O2 library)\n", ROCKSDB_MAJOR, ROCKSDB_MINOR,
              ROCKSDB_PATCH);
  std::printf("Keys:       %d bytes each (%s semantics)\n",
              f.semantics == "shale" ? f.key_size : 4 + static_cast<int>(std::to_string(f.num - 1).size()),
              f.semantics.c_str());
  std::printf("Entries:    %" PRId64 "\n", f.num);
  std::printf("Transactions: %s, %d sets\n", f.optimistic ? "optimistic" : "pessimistic",
              f.transaction_sets);
  std::printf("------------------------------------------------\n");
  const int64_t ops = f.reads < 0 ? f.num : f.reads;
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < ops; i++) {
    if (f.semantics == "shale") b.ShaleTransaction();
    else b.DbBenchTransaction();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  delete b.txn;
  b.txn = nullptr;
  char extra[200];
  std::snprintf(extra, sizeof(extra), "%6.1f MB/s ( transactions:%" PRId64 " aborts:%" PRIu64 ")",
                (static_cast<double>(b.bytes) / 1048576.0) / seconds, ops, b.aborts);
  std::printf("%-12s : %11.3f micros/op %ld ops/sec %.3f seconds %" PRId64 " operations; %s\n",
              "randomtransaction", seconds * 1e6 / static_cast<double>(ops),
              static_cast<long>(static_cast<double>(ops) / seconds), seconds, ops, extra);
  const bool ok = b.Verify();
  std::printf("RandomTransactionVerify %s.\n", ok ? "Success" : "FAILED!!");
  delete b.otxn_db;
  delete b.ptxn_db;
  if (temporary) {
    DestroyDB(f.db, options);
    rmdir(f.db.c_str());
  }
  return ok ? 0 : 1;
}
