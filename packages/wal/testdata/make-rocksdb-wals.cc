// Writes the RocksDB-written WALs of this directory with librocksdb 7.8.3 itself:
//   g++ -O1 -o /tmp/make-rocksdb-wals make-rocksdb-wals.cc -lrocksdb && /tmp/make-rocksdb-wals .
// (needs librocksdb-dev), then RocksDB's own reading of each, the oracle of wal's tests:
//   for f in fillseq recycled zstd; do n=$(cat rocksdb-$f.lognumber); d=$(mktemp -d);
//     cp rocksdb-$f.log $d/$(printf %06d $n).log;
//     ldb dump_wal --walfile=$d/$(printf %06d $n).log --header > rocksdb-$f.dump.txt; done Each file is the newest WAL of a database closed without a flush
// (a clean close keeps the WAL when it holds the data); the program prints their names.
//
//   rocksdb-fillseq.log   120 puts of 16-byte keys and 200-byte values (one WriteBatch
//                         each; records cross block boundaries as FIRST/LAST), a 3-put
//                         batch with a Delete, and one 40,000-byte value (FIRST/MIDDLE/LAST)
//   rocksdb-recycled.log  recycle_log_file_num=1 (RocksDB 7.8.3 keeps recycling only with
//                         kSkipAnyCorruptedRecords): a reused file, written by a process
//                         that then died (a clean close truncates a reused file): 20
//                         recyclable records (types 5-8) of its own log number, then what
//                         the file held as an older log (the rest of a torn old record,
//                         then records of another log number); the log number
// Each rocksdb-X.lognumber holds the log number (ldb takes it from the file's name).
//   rocksdb-zstd.log      wal_compression=kZSTDCompression: a SetCompressionType record first
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/write_batch.h"

using namespace rocksdb;

static void check(const Status& s) {
  if (!s.ok()) {
    fprintf(stderr, "%s\n", s.ToString().c_str());
    exit(1);
  }
}

static std::string key(int i) {
  char buf[17];
  snprintf(buf, sizeof(buf), "key%013d", i);
  return std::string(buf, 16);
}

static std::string value(int i, size_t n) {
  std::string v(n, 'a' + (i % 26));
  return v;
}

static std::string newestLog(const std::string& dir) {
  std::vector<std::string> names;
  check(Env::Default()->GetChildren(dir, &names));
  std::string best;
  for (auto& n : names) {
    if (n.size() > 4 && n.substr(n.size() - 4) == ".log" && n > best) best = n;
  }
  return best;
}

static void copy(const std::string& from, const std::string& to) {
  std::string data;
  check(ReadFileToString(Env::Default(), from, &data));
  check(WriteStringToFile(Env::Default(), data, to, true));
  printf("%s <- %s (%zu bytes)\n", to.c_str(), from.c_str(), data.size());
}

static void writeLogNumber(const std::string& log, const std::string& to) {
  FILE* f = fopen(to.c_str(), "w");
  fprintf(f, "%lu\n", std::stoul(log.substr(0, log.size() - 4)));
  fclose(f);
}

int main(int argc, char** argv) {
  std::string out = argc > 1 ? argv[1] : ".";
  char tmpl[] = "/tmp/rocksdb-wals-XXXXXX";
  std::string tmp = mkdtemp(tmpl);

  {  // fillseq
    Options o;
    o.create_if_missing = true;
    o.compression = kNoCompression;
    DB* db;
    std::string dir = tmp + "/fill";
    check(DB::Open(o, dir, &db));
    for (int i = 0; i < 120; i++) check(db->Put(WriteOptions(), key(i), value(i, 200)));
    WriteBatch b;
    b.Put("batch-a", "1");
    b.Delete(key(7));
    b.Put("batch-b", "2");
    check(db->Write(WriteOptions(), &b));
    check(db->Put(WriteOptions(), "big", value(1, 40000)));
    delete db;
    std::string log = newestLog(dir);
    copy(dir + "/" + log, out + "/rocksdb-fillseq.log");
    writeLogNumber(log, out + "/rocksdb-fillseq.lognumber");
  }
  {  // recycled
    Options o;
    o.create_if_missing = true;
    o.compression = kNoCompression;
    o.recycle_log_file_num = 1;
    o.wal_recovery_mode = WALRecoveryMode::kSkipAnyCorruptedRecords;
    DB* db;
    std::string dir = tmp + "/recycle";
    check(DB::Open(o, dir, &db));
    // The first log: many records; flushed twice so that its file is reused.
    for (int i = 0; i < 120; i++) check(db->Put(WriteOptions(), "old" + key(i), value(i, 300)));
    check(db->Flush(FlushOptions()));
    check(db->Put(WriteOptions(), "between", "x"));
    check(db->Flush(FlushOptions()));
    // The reused file: fewer bytes than the old log held, synced, then the process dies
    // (a clean close would truncate the file to what this log wrote).
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
      WriteOptions sync;
      sync.sync = true;
      for (int i = 0; i < 20; i++) check(db->Put(sync, "new" + key(i), value(i, 100)));
      _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    std::string log = newestLog(dir);
    copy(dir + "/" + log, out + "/rocksdb-recycled.log");  // before `db` could close it
    writeLogNumber(log, out + "/rocksdb-recycled.lognumber");
  }
  {  // zstd
    Options o;
    o.create_if_missing = true;
    o.wal_compression = kZSTD;
    DB* db;
    std::string dir = tmp + "/zstd";
    check(DB::Open(o, dir, &db));
    for (int i = 0; i < 3; i++) check(db->Put(WriteOptions(), key(i), value(i, 50)));
    delete db;
    std::string log = newestLog(dir);
    copy(dir + "/" + log, out + "/rocksdb-zstd.log");
    writeLogNumber(log, out + "/rocksdb-zstd.lognumber");
  }
  // The recycling database is still open in this process (closing it would truncate the
  // reused file, which is copied already): remove the directory without closing it.
  return system(("rm -rf " + tmp).c_str());
}
