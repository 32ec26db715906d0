#include <rocksdb/db.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/convenience.h>
#include <cstdio>
#include <string>
#include <vector>
using namespace rocksdb;
int main(int argc, char** argv) {
  std::string path = argv[1];
  bool cf = argc > 2 && std::string(argv[2]) == "cf";
  Options o; o.create_if_missing = true;
  ConfigOptions co;
  std::shared_ptr<MergeOperator> mo;
  Status s = MergeOperator::CreateFromString(co, "max", &mo);
  if (!s.ok()) { fprintf(stderr, "mo %s\n", s.ToString().c_str()); return 1; }
  o.merge_operator = mo;
  DB* db; s = DB::Open(o, path, &db);
  if (!s.ok()) { fprintf(stderr, "%s\n", s.ToString().c_str()); return 1; }
  WriteOptions w;
  for (int i = 0; i < 100; i++) { char k[16]; snprintf(k, sizeof k, "key%04d", i); db->Put(w, k, "v" + std::to_string(i)); }
  db->Flush(FlushOptions());
  for (int i = 50; i < 150; i++) { char k[16]; snprintf(k, sizeof k, "key%04d", i); db->Put(w, k, "w" + std::to_string(i)); }
  db->Merge(w, "m", "5");
  db->Flush(FlushOptions());
  db->CompactRange(CompactRangeOptions(), nullptr, nullptr);
  db->Put(w, "last", "x");
  db->Flush(FlushOptions());
  if (cf) {
    ColumnFamilyHandle* h; s = db->CreateColumnFamily(ColumnFamilyOptions(o), "other", &h);
    if (!s.ok()) { fprintf(stderr, "%s\n", s.ToString().c_str()); return 1; }
    db->Put(w, h, "cfkey", "cfval"); db->Flush(FlushOptions(), h);
    ColumnFamilyHandle* h2; db->CreateColumnFamily(ColumnFamilyOptions(o), "gone", &h2);
    db->DropColumnFamily(h2); db->DestroyColumnFamilyHandle(h2);
    db->DestroyColumnFamilyHandle(h);
  }
  db->Put(w, "tail", "y");
  delete db;
  return 0;
}
