// Writes the RocksDB-made tables of packages/sstable/testdata/rocksdb-tables/ (run by
// make-rocksdb-tables.sh; needs librocksdb-dev 7.8.3). Every table but versions.sst holds
// the same NUM entries (tiny.sst: the first 3) written with SstFileWriter (sequence numbers 0):
//   key i = "key%06d"; i % 7 == 3 -> Delete; else i % 11 == 5 -> Merge(value); else
//   Put(value), value i = "value-%d-" + "x" * (i % 23); plus DeleteRange [key000100, key000120).
// versions.sst: one user key "k" with VERSIONS versions kept by snapshots, flushed by a DB
// with 256-byte blocks, so the key spans blocks and the index keeps sequence numbers;
// versions-partitioned.sst the same with a partitioned index and filters (64-byte partitions).
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace rocksdb;

static const int NUM = 300;
static const int VERSIONS = 40;

static void check(const Status& s, const char* what) {
  if (!s.ok()) {
    fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
    exit(1);
  }
}

struct Spec {
  const char* name;
  int num;
  int format_version;
  ChecksumType checksum;
  CompressionType compression;
  int bloom_bits;  // 0: no filter
  int index_restart_interval;
  size_t block_size;
  bool hash_index;
  BlockBasedTableOptions::IndexType index_type;
  bool prefix_only = false;  // whole_key_filtering false, a 3-byte prefix extractor
  bool partition_filters = false;
  uint64_t metadata_block_size = 4096;
};

static void write_table(const std::string& dir, const Spec& spec) {
  Options o;
  BlockBasedTableOptions t;
  t.format_version = spec.format_version;
  t.checksum = spec.checksum;
  t.index_block_restart_interval = spec.index_restart_interval;
  t.block_size = spec.block_size;
  t.index_type = spec.index_type;
  t.partition_filters = spec.partition_filters;
  t.metadata_block_size = spec.metadata_block_size;
  if (spec.hash_index) t.data_block_index_type = BlockBasedTableOptions::kDataBlockBinaryAndHash;
  if (spec.bloom_bits > 0) t.filter_policy.reset(NewBloomFilterPolicy(spec.bloom_bits));
  if (spec.prefix_only) {
    t.whole_key_filtering = false;
    o.prefix_extractor.reset(NewFixedPrefixTransform(3));
  }
  o.table_factory.reset(NewBlockBasedTableFactory(t));
  o.compression = spec.compression;
  SstFileWriter w(EnvOptions(), o);
  check(w.Open(dir + "/" + spec.name), spec.name);
  char key[32];
  for (int i = 0; i < spec.num; i++) {
    snprintf(key, sizeof key, "key%06d", i);
    std::string value = "value-" + std::to_string(i) + "-" + std::string(i % 23, 'x');
    if (i % 7 == 3)
      check(w.Delete(key), "delete");
    else if (i % 11 == 5)
      check(w.Merge(key, value), "merge");
    else
      check(w.Put(key, value), "put");
  }
  if (spec.num > 120) check(w.DeleteRange("key000100", "key000120"), "delete range");
  check(w.Finish(), spec.name);
}

static void write_versions(const std::string& dir, const char* name, bool partitioned) {
  std::string db_dir = dir + "/versions-db";
  Options o;
  o.create_if_missing = true;
  o.compression = kNoCompression;
  BlockBasedTableOptions t;
  t.block_size = 256;
  t.checksum = kCRC32c;
  if (partitioned) {
    t.index_type = BlockBasedTableOptions::kTwoLevelIndexSearch;
    t.partition_filters = true;
    t.metadata_block_size = 64;
    t.filter_policy.reset(NewBloomFilterPolicy(10));
  }
  o.table_factory.reset(NewBlockBasedTableFactory(t));
  DB* db;
  check(DestroyDB(db_dir, o), "destroy");
  check(DB::Open(o, db_dir, &db), "open");
  std::vector<const Snapshot*> snapshots;
  for (int v = 0; v < VERSIONS; v++) {
    check(db->Put(WriteOptions(), "k", "version-" + std::to_string(v) + "-" + std::string(20, 'v')),
          "put");
    snapshots.push_back(db->GetSnapshot());
  }
  check(db->Put(WriteOptions(), "m", "last"), "put");
  check(db->Flush(FlushOptions()), "flush");
  std::vector<LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  if (files.size() != 1) {
    fprintf(stderr, "expected one table, got %zu\n", files.size());
    exit(1);
  }
  std::string from = files[0].db_path + files[0].name;
  for (auto* s : snapshots) db->ReleaseSnapshot(s);
  delete db;
  std::string cmd = "cp " + from + " " + dir + "/" + name + " && rm -rf " + db_dir;
  if (system(cmd.c_str()) != 0) exit(1);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <output dir>\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  const auto bin = BlockBasedTableOptions::kBinarySearch;
  const auto two = BlockBasedTableOptions::kTwoLevelIndexSearch;
  const Spec specs[] = {
      {"tiny.sst", 3, 5, kCRC32c, kNoCompression, 10, 1, 4096, false, bin},
      {"fv5-crc32c.sst", NUM, 5, kCRC32c, kNoCompression, 10, 1, 1024, false, bin},
      {"fv5-xxhash.sst", NUM, 5, kxxHash, kNoCompression, 10, 1, 1024, false, bin},
      {"fv5-xxhash64.sst", NUM, 5, kxxHash64, kNoCompression, 10, 1, 1024, false, bin},
      {"fv5-xxh3.sst", NUM, 5, kXXH3, kNoCompression, 10, 1, 1024, false, bin},
      {"fv5-nochecksum.sst", NUM, 5, kNoChecksum, kNoCompression, 0, 1, 1024, false, bin},
      {"fv5-snappy.sst", NUM, 5, kCRC32c, kSnappyCompression, 10, 1, 1024, false, bin},
      {"fv5-hash-index-restart4.sst", NUM, 5, kXXH3, kNoCompression, 0, 4, 512, true, bin},
      {"fv4-crc32c.sst", NUM, 4, kCRC32c, kNoCompression, 10, 1, 1024, false, bin},
      {"fv3-crc32c.sst", NUM, 3, kCRC32c, kNoCompression, 10, 1, 1024, false, bin},
      {"fv2-crc32c.sst", NUM, 2, kCRC32c, kNoCompression, 0, 1, 1024, false, bin},
      {"fv5-two-level-index.sst", NUM, 5, kCRC32c, kNoCompression, 0, 1, 1024, false,
       BlockBasedTableOptions::kTwoLevelIndexSearch},
      {"fv5-first-key-index.sst", NUM, 5, kCRC32c, kNoCompression, 0, 1, 1024, false,
       BlockBasedTableOptions::kBinarySearchWithFirstKey},
      {"fv5-prefix-filter.sst", NUM, 5, kCRC32c, kNoCompression, 10, 1, 1024, false, bin, true},
      // Partitioned indexes and filters, partitions of a few entries (metadata_block_size);
      // format versions < 5 get RocksDB's legacy Bloom filter in each partition.
      {"fv5-partitioned.sst", NUM, 5, kCRC32c, kNoCompression, 10, 1, 256, false, two, false,
       true, 128},
      {"fv4-partitioned.sst", NUM, 4, kCRC32c, kNoCompression, 10, 1, 256, false, two, false,
       true, 100},
      {"fv3-partitioned.sst", NUM, 3, kCRC32c, kNoCompression, 10, 1, 256, false, two, false,
       true, 100},
      {"fv2-partitioned.sst", NUM, 2, kCRC32c, kNoCompression, 10, 1, 256, false, two, false,
       true, 100},
      {"fv5-partitioned-index-only.sst", NUM, 5, kCRC32c, kNoCompression, 10, 1, 256, false, two,
       false, false, 64},
      {"fv4-partitioned-index-only.sst", NUM, 4, kCRC32c, kNoCompression, 0, 1, 256, false, two,
       false, false, 100},
      {"fv3-partitioned-index-only.sst", NUM, 3, kCRC32c, kNoCompression, 0, 1, 256, false, two,
       false, false, 100},
      {"fv2-partitioned-index-only.sst", NUM, 2, kCRC32c, kNoCompression, 0, 1, 256, false, two,
       false, false, 100},
      // First keys with index restart interval 4: values after a shared prefix are deltas.
      {"fv4-first-key-index-restart4.sst", NUM, 4, kCRC32c, kNoCompression, 0, 4, 256, false,
       BlockBasedTableOptions::kBinarySearchWithFirstKey},
  };
  for (const Spec& s : specs) write_table(dir, s);
  write_versions(dir, "versions.sst", false);
  write_versions(dir, "versions-partitioned.sst", true);
  return 0;
}
