// Writes the RocksDB-made Ribbon fixtures of @shale/bloom (see README.md in this folder).
//
//   g++ -O1 -std=c++17 make-ribbon-fixtures.cc -lrocksdb -o make-ribbon-fixtures
//   ./make-ribbon-fixtures packages/bloom/testdata
//
// Built against RocksDB 7.8.3 (librocksdb-dev; its Ribbon format is the one RocksDB 10 writes
// and reads). Outputs:
//   ribbon-vectors.json   RocksDB's own Ribbon filter builder (NewRibbonFilterPolicy(bpk, -1)
//                         through GetBuilderWithContext) and reader (GetFilterBitsReader) on
//                         many (bits/key, key count) settings: each filter's length, Hash64
//                         digest and metadata, the whole filter for the small ones, and the
//                         reader's MayMatch answers for 20000 absent probe keys (count and
//                         Hash64 digest of the answer bitmap)
//   ribbon-seq2000-bpk10.sst  rocksdb::SstFileWriter with NewRibbonFilterPolicy(10, -1):
//                         keys key000000..key001999, value "v", no compression
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/env.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/options.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/status.h"
#include "rocksdb/table.h"

namespace rocksdb {
uint64_t Hash64(const char* data, size_t n);

// See make-rocksdb-fixtures.cc: the virtual methods in RocksDB's order (test tool only).
class FilterBitsBuilder {
 public:
  virtual ~FilterBitsBuilder() {}
  virtual void AddKey(const Slice& key) = 0;
  virtual size_t EstimateEntriesAdded() = 0;
  virtual Slice Finish(std::unique_ptr<const char[]>* buf) = 0;
  virtual Slice Finish(std::unique_ptr<const char[]>* buf, Status*) { return Finish(buf); }
  virtual Status MaybePostVerify(const Slice&) { return Status::OK(); }
  virtual size_t ApproximateNumEntries(size_t bytes) = 0;
};
class FilterBitsReader {
 public:
  virtual ~FilterBitsReader() {}
  virtual bool MayMatch(const Slice& entry) = 0;
  virtual void MayMatch(int num_keys, Slice** keys, bool* may_match) {
    for (int i = 0; i < num_keys; ++i) may_match[i] = MayMatch(*keys[i]);
  }
};
}  // namespace rocksdb

static const int kProbeKeys = 20000;

static std::string hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(d[c >> 4]);
    out.push_back(d[c & 15]);
  }
  return out;
}

// Key i of a setting: "k<i>", or for the "dup" recipe every key twice in a row and then
// the first 10 again (consecutive duplicates are collapsed, the others are not).
static std::vector<std::string> keysOf(const std::string& recipe, int n) {
  std::vector<std::string> keys;
  for (int i = 0; i < n; i++) {
    keys.push_back("k" + std::to_string(i));
    if (recipe == "dup") keys.push_back("k" + std::to_string(i));
  }
  if (recipe == "dup")
    for (int i = 0; i < 10 && i < n; i++) keys.push_back("k" + std::to_string(i));
  return keys;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <output dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  FILE* f = fopen((dir + "/ribbon-vectors.json").c_str(), "w");
  if (!f) return 1;
  fprintf(f, "{\n  \"recipe\": \"keys k0..k<n-1> (dup: each twice in a row, then k0..k9 again); probes q0..q%d\",\n", kProbeKeys - 1);
  fprintf(f, "  \"filters\": [\n");
  const double bpks[] = {1, 2.5, 5, 7.5, 8, 9.9, 10, 12.3, 16, 20, 24, 33.3, 50, 100};
  const int counts[] = {1, 2, 50, 200, 700, 1000, 1100, 3000, 10000, 100000, 300000};
  bool first = true;
  rocksdb::BlockBasedTableOptions table;
  table.format_version = 5;
  table.optimize_filters_for_memory = false;
  rocksdb::FilterBuildingContext context(table);
  for (const char* recipe : {"plain", "dup"}) {
    for (double bpk : bpks) {
      for (int n : counts) {
        if (std::string(recipe) == "dup" && (n > 3000 || (bpk != 10 && bpk != 7.5))) continue;
        if (n >= 100000 && bpk != 10 && bpk != 2.5 && bpk != 33.3) continue;
        std::unique_ptr<const rocksdb::FilterPolicy> policy(rocksdb::NewRibbonFilterPolicy(bpk, -1));
        std::unique_ptr<rocksdb::FilterBitsBuilder> builder(policy->GetBuilderWithContext(context));
        for (const std::string& k : keysOf(recipe, n)) builder->AddKey(k);
        std::unique_ptr<const char[]> buf;
        std::string filter = builder->Finish(&buf).ToString();
        std::unique_ptr<rocksdb::FilterBitsReader> reader(policy->GetFilterBitsReader(filter));
        std::string bitmap(kProbeKeys / 8, '\0');
        int matches = 0;
        for (int j = 0; j < kProbeKeys; j++) {
          if (reader->MayMatch("q" + std::to_string(j))) {
            bitmap[j / 8] |= static_cast<char>(1 << (j % 8));
            matches++;
          }
        }
        int present = 0;
        for (int i = 0; i < n; i++) present += reader->MayMatch("k" + std::to_string(i)) ? 1 : 0;
        std::string meta = filter.size() >= 5 ? filter.substr(filter.size() - 5) : filter;
        fprintf(f,
                "%s    {\"recipe\": \"%s\", \"bitsPerKey\": %g, \"keys\": %d, \"length\": %zu, "
                "\"digest\": \"%016" PRIx64 "\", \"metadata\": \"%s\", \"present\": %d, "
                "\"probeMatches\": %d, \"probeDigest\": \"%016" PRIx64 "\"%s%s%s}",
                first ? "" : ",\n", recipe, bpk, n, filter.size(),
                rocksdb::Hash64(filter.data(), filter.size()), hex(meta).c_str(), present, matches,
                rocksdb::Hash64(bitmap.data(), bitmap.size()),
                filter.size() <= 400 ? ", \"filter\": \"" : "",
                filter.size() <= 400 ? hex(filter).c_str() : "", filter.size() <= 400 ? "\"" : "");
        first = false;
      }
    }
  }
  fprintf(f, "\n  ]\n}\n");
  fclose(f);

  // A table with a Ribbon filter.
  rocksdb::Options options;
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy.reset(rocksdb::NewRibbonFilterPolicy(10, -1));
  t.format_version = 5;
  t.optimize_filters_for_memory = false;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  options.compression = rocksdb::kNoCompression;
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
  const std::string path = dir + "/ribbon-seq2000-bpk10.sst";
  rocksdb::Status s = writer.Open(path);
  for (int i = 0; s.ok() && i < 2000; i++) {
    char key[16];
    snprintf(key, sizeof key, "key%06d", i);
    s = writer.Put(key, "v");
  }
  if (s.ok()) s = writer.Finish();
  if (!s.ok()) {
    fprintf(stderr, "%s: %s\n", path.c_str(), s.ToString().c_str());
    return 1;
  }
  return 0;
}
