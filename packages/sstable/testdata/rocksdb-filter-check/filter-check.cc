// RocksDB reads a table shale wrote and answers point lookups through ITS filter reader
// (src/filter-interop.test.ts compiles and runs this; RocksDB 7.8.3, librocksdb-dev):
//
//   g++ -O1 -std=c++17 filter-check.cc -lrocksdb -o /tmp/shale-filter-check
//   /tmp/shale-filter-check <table.sst> <empty db dir> <present keys> <absent keys>
//
// Ingests the table into a new database (Bloom filter policy, statistics on), then Gets
// key%06d for i < present (each must be found with value v%06d) and, for i < absent,
// key%06d.%d of (i % (present - 1), i / (present - 1)): absent keys inside the table's key
// range (outside it RocksDB skips the table before asking its filter). Prints one line: found=<n> wrong=<n> useful=<BLOOM_FILTER_USEFUL>
// positive=<BLOOM_FILTER_FULL_POSITIVE> true_positive=<BLOOM_FILTER_FULL_TRUE_POSITIVE>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/options.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s <table.sst> <db dir> <present> <absent>\n", argv[0]);
    return 2;
  }
  const int present = atoi(argv[3]);
  const int absent = atoi(argv[4]);
  rocksdb::Options options;
  options.create_if_missing = true;
  options.statistics = rocksdb::CreateDBStatistics();
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, argv[2], &raw);
  if (!s.ok()) {
    fprintf(stderr, "open: %s\n", s.ToString().c_str());
    return 1;
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  rocksdb::IngestExternalFileOptions ingest;
  s = db->IngestExternalFile({argv[1]}, ingest);
  if (!s.ok()) {
    fprintf(stderr, "ingest: %s\n", s.ToString().c_str());
    return 1;
  }
  options.statistics->Reset();
  int found = 0, wrong = 0;
  char key[32], value[32];
  std::string got;
  for (int i = 0; i < present; i++) {
    snprintf(key, sizeof key, "key%06d", i);
    snprintf(value, sizeof value, "v%06d", i);
    s = db->Get(rocksdb::ReadOptions(), key, &got);
    if (s.ok() && got == value) found++;
    else if (!s.IsNotFound()) wrong++;
  }
  for (int i = 0; i < absent; i++) {
    snprintf(key, sizeof key, "key%06d.%d", i % (present - 1), i / (present - 1));
    s = db->Get(rocksdb::ReadOptions(), key, &got);
    if (!s.IsNotFound()) wrong++;
  }
  rocksdb::Statistics& st = *options.statistics;
  printf("found=%d wrong=%d useful=%llu positive=%llu true_positive=%llu\n", found, wrong,
         static_cast<unsigned long long>(st.getTickerCount(rocksdb::BLOOM_FILTER_USEFUL)),
         static_cast<unsigned long long>(st.getTickerCount(rocksdb::BLOOM_FILTER_FULL_POSITIVE)),
         static_cast<unsigned long long>(st.getTickerCount(rocksdb::BLOOM_FILTER_FULL_TRUE_POSITIVE)));
  return 0;
}
