// Writes the RocksDB-made fixtures of @shale/bloom (see README.md in this folder).
//
//   g++ -O1 -std=c++17 make-rocksdb-fixtures.cc -lrocksdb -o make-rocksdb-fixtures
//   ./make-rocksdb-fixtures packages/bloom/testdata
//
// Built against RocksDB 7.8.3 (librocksdb-dev). Outputs:
//   hash-vectors.json   RocksDB's Hash64 (GetSliceHash64, the filter key hash) and its legacy
//                       32-bit Hash(.., 0xbc9f1d34) (BloomHash) of generated keys
//   *.sst               tables written by rocksdb::SstFileWriter with a full Bloom filter
//   tables.json         for each table: its keys' recipe, bits/key and format_version
//   builder-vectors.json  RocksDB's own filter builder (BloomFilterPolicy::GetBuilderWithContext)
//                       and reader (GetFilterBitsReader) on many (format_version, bits/key,
//                       key count) settings: each filter's length and Hash64 digest, and the
//                       reader's MayMatch answers for 2000 probe keys; plus one Ribbon filter
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>
#include <algorithm>

#include "rocksdb/env.h"
#include "rocksdb/status.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/options.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"

namespace rocksdb {
// Not in the public headers, exported by librocksdb (util/hash.h).
uint64_t Hash64(const char* data, size_t n);
uint32_t Hash(const char* data, size_t n, uint32_t seed);

// The public headers only forward-declare these two (RocksDB >= 7.0 keeps them in
// table/block_based/filter_policy_internal.h). Declared here with the same virtual methods in
// the same order, so that calls through RocksDB's objects reach RocksDB's code (test tool only).
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

static const int kProbeKeys = 2000;

static std::string hex(const std::string& s);

// RocksDB's filter of keys "k0".."k<n-1>" for (policy, format_version), as a string.
static std::string rocksdbFilter(const rocksdb::FilterPolicy& policy, int formatVersion, int n) {
  rocksdb::BlockBasedTableOptions table;
  table.format_version = formatVersion;
  rocksdb::FilterBuildingContext context(table);
  std::unique_ptr<rocksdb::FilterBitsBuilder> builder(policy.GetBuilderWithContext(context));
  for (int i = 0; i < n; i++) builder->AddKey("k" + std::to_string(i));
  std::unique_ptr<const char[]> buf;
  rocksdb::Slice filter = builder->Finish(&buf);
  return filter.ToString();
}

// RocksDB's reader's answers for "q0".."q1999" on `filter`, as a hex bitmap (bit j of byte j/8).
static std::string probeAnswers(const rocksdb::FilterPolicy& policy, const std::string& filter) {
  std::unique_ptr<rocksdb::FilterBitsReader> reader(policy.GetFilterBitsReader(filter));
  std::string bitmap(kProbeKeys / 8, '\0');
  for (int j = 0; j < kProbeKeys; j++) {
    if (reader->MayMatch("q" + std::to_string(j))) bitmap[j / 8] |= static_cast<char>(1 << (j % 8));
  }
  return hex(bitmap);
}


// The generated key of length `len` (the same recipe is in bloom-fixtures.test-support.ts).
static std::string patternKey(size_t len) {
  std::string s(len, '\0');
  for (size_t i = 0; i < len; i++) s[i] = static_cast<char>((i * 131 + len * 7 + 0x5a) & 0xff);
  return s;
}

static std::string hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(d[c >> 4]);
    out.push_back(d[c & 15]);
  }
  return out;
}

static int writeTable(const std::string& path, const std::vector<std::string>& keys,
                      double bitsPerKey, int formatVersion) {
  rocksdb::Options options;
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(bitsPerKey));
  table.format_version = formatVersion;
  table.whole_key_filtering = true;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  options.compression = rocksdb::kNoCompression;
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
  rocksdb::Status s = writer.Open(path);
  for (size_t i = 0; s.ok() && i < keys.size(); i++) s = writer.Put(keys[i], "v");
  if (s.ok()) s = writer.Finish();
  if (!s.ok()) {
    fprintf(stderr, "%s: %s\n", path.c_str(), s.ToString().c_str());
    return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <output dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];

  // Hash vectors: every length class of XXPH3 (0, 1-3, 4-8, 9-16, 17-128, 129-240, > 240,
  // more than one 1024-byte block) and the legacy hash's tails.
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 300; n++) lengths.push_back(n);
  for (size_t n : {1023, 1024, 1025, 1087, 2048, 2111, 5000}) lengths.push_back(n);
  FILE* f = fopen((dir + "/hash-vectors.json").c_str(), "w");
  if (!f) return 1;
  fprintf(f, "{\n  \"recipe\": \"key[i] = (i * 131 + len * 7 + 0x5a) & 0xff\",\n");
  fprintf(f, "  \"hash64\": [\n");
  for (size_t i = 0; i < lengths.size(); i++) {
    std::string k = patternKey(lengths[i]);
    fprintf(f, "    [%zu, \"%016" PRIx64 "\"]%s\n", lengths[i], rocksdb::Hash64(k.data(), k.size()),
            i + 1 < lengths.size() ? "," : "");
  }
  fprintf(f, "  ],\n  \"bloomHash32\": [\n");
  for (size_t n = 0; n <= 40; n++) {
    std::string k = patternKey(n);
    fprintf(f, "    [%zu, \"%08" PRIx32 "\"]%s\n", n, rocksdb::Hash(k.data(), k.size(), 0xbc9f1d34),
            n < 40 ? "," : "");
  }
  fprintf(f, "  ]\n}\n");
  fclose(f);

  // Tables. "seq": key%06d for 0..count-1; "varied": patternKey(len) for len 0..300 (sorted).
  std::vector<std::string> seq;
  for (int i = 0; i < 1000; i++) {
    char buf[16];
    snprintf(buf, sizeof buf, "key%06d", i);
    seq.push_back(buf);
  }
  std::vector<std::string> varied;
  for (size_t n = 0; n <= 300; n++) varied.push_back(patternKey(n));
  std::sort(varied.begin(), varied.end());
  varied.erase(std::unique(varied.begin(), varied.end()), varied.end());

  struct T { const char* name; const char* keys; double bpk; int fv; };
  const T tables[] = {
      {"fv5-seq1000-bpk10.sst", "seq1000", 10, 5},
      {"fv5-varied-bpk10.sst", "varied", 10, 5},
      {"fv5-seq1000-bpk7.5.sst", "seq1000", 7.5, 5},
      {"fv4-seq1000-bpk10.sst", "seq1000", 10, 4},
  };
  FILE* t = fopen((dir + "/tables.json").c_str(), "w");
  if (!t) return 1;
  fprintf(t, "[\n");
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    const T& x = tables[i];
    const std::vector<std::string>& keys = std::string(x.keys) == "varied" ? varied : seq;
    if (writeTable(dir + "/" + x.name, keys, x.bpk, x.fv)) return 1;
    fprintf(t, "  {\"file\": \"%s\", \"keys\": \"%s\", \"bitsPerKey\": %g, \"formatVersion\": %d}%s\n",
            x.name, x.keys, x.bpk, x.fv, i + 1 < sizeof tables / sizeof tables[0] ? "," : "");
  }
  fprintf(t, "]\n");
  fclose(t);

  // RocksDB's builder and reader across settings.
  FILE* b = fopen((dir + "/builder-vectors.json").c_str(), "w");
  if (!b) return 1;
  fprintf(b, "{\n  \"recipe\": \"keys k0..k<keys-1>, probes q0..q1999 (decimal ASCII); answers: bit j of byte j/8 = MayMatch(q<j>)\",\n");
  fprintf(b, "  \"filters\": [\n");
  const double bpks[] = {1, 2.5, 4, 6, 7.5, 10, 13.7, 16, 20, 25.5, 30, 42, 50.5, 77, 100};
  const int counts[] = {1, 64, 1000};
  bool first = true;
  for (int fv : {5, 4}) {
    for (double bpk : bpks) {
      std::unique_ptr<const rocksdb::FilterPolicy> policy(rocksdb::NewBloomFilterPolicy(bpk));
      for (int n : counts) {
        std::string filter = rocksdbFilter(*policy, fv, n);
        fprintf(b, "%s    {\"formatVersion\": %d, \"bitsPerKey\": %g, \"keys\": %d, \"length\": %zu, \"hash64\": \"%016" PRIx64 "\", \"answers\": \"%s\"}",
                first ? "" : ",\n", fv, bpk, n, filter.size(), rocksdb::Hash64(filter.data(), filter.size()),
                probeAnswers(*policy, filter).c_str());
        first = false;
      }
    }
  }
  fprintf(b, "\n  ],\n");
  // A Ribbon filter (marker -2): @shale/bloom does not implement it and must say "may match".
  std::unique_ptr<const rocksdb::FilterPolicy> ribbon(rocksdb::NewRibbonFilterPolicy(10));
  std::string rf = rocksdbFilter(*ribbon, 5, 200);
  fprintf(b, "  \"ribbon\": {\"bitsPerKey\": 10, \"keys\": 200, \"filter\": \"%s\"}\n}\n", hex(rf).c_str());
  fclose(b);
  return 0;
}
