// RocksDB's side of interop/two-phase-rocksdb.test.ts, built there with g++ against
// librocksdb-dev (RocksDB 7.8.3): a TransactionDB (WriteCommitted, the default policy).
//
//   rocksdb-two-phase write <dir>   puts "plain"; prepares and commits "ka"="va" as "done";
//                                   prepares and rolls back "kb" as "dropped"; prepares "kc"
//                                   as "pending" and exits without deciding it
//   rocksdb-two-phase commit <dir>  prints "prepared <name>" for every recovered prepared
//                                   transaction and commits it, then "<key>=<value>" or
//                                   "<key>=NotFound" for plain, ka, kb, kc
#include <rocksdb/utilities/transaction_db.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace ROCKSDB_NAMESPACE;

static void Check(const Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
    std::exit(1);
  }
}

static void Prepared(TransactionDB* db, const char* name, const char* key, const char* value,
                     int decide) {
  Transaction* t = db->BeginTransaction(WriteOptions());
  Check(t->SetName(name), "SetName");
  Check(t->Put(key, value), "Put");
  Check(t->Prepare(), "Prepare");
  if (decide > 0) Check(t->Commit(), "Commit");
  if (decide < 0) Check(t->Rollback(), "Rollback");
  if (decide != 0) delete t;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  Options options;
  options.create_if_missing = true;
  TransactionDB* db = nullptr;
  Check(TransactionDB::Open(options, TransactionDBOptions(), argv[2], &db), "Open");
  if (std::strcmp(argv[1], "write") == 0) {
    Check(db->Put(WriteOptions(), "plain", "1"), "Put");
    Prepared(db, "done", "ka", "va", 1);
    Prepared(db, "dropped", "kb", "vb", -1);
    Prepared(db, "pending", "kc", "vc", 0);
    std::fflush(stdout);
    std::_Exit(0);  // a crash: "pending" stays prepared in the WAL
  }
  std::vector<Transaction*> txns;
  db->GetAllPreparedTransactions(&txns);
  for (Transaction* t : txns) {
    std::printf("prepared %s\n", t->GetName().c_str());
    Check(t->Commit(), "Commit");
    delete t;
  }
  for (const char* key : {"plain", "ka", "kb", "kc"}) {
    std::string value;
    Status s = db->Get(ReadOptions(), key, &value);
    std::printf("%s=%s\n", key, s.ok() ? value.c_str() : "NotFound");
  }
  delete db;
  return 0;
}
