// Prints RocksDB 7.8.3 BytewiseComparator::FindShortestSeparator(a, b) for 400 pseudo-random
// pairs a < b as JSON [a, b, separator] (hex), for packages/sstable/src/index-block.test.ts.
// Run by make-rocksdb-tables.sh.
#include <rocksdb/comparator.h>
#include <rocksdb/slice.h>
#include <cstdio>
#include <string>
#include <algorithm>
using namespace rocksdb;
static unsigned long long s = 88172645463325252ULL;
static unsigned next() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (unsigned)s; }
static std::string hex(const std::string& x) { std::string o; char b[3]; for (unsigned char c : x) { snprintf(b, 3, "%02x", c); o += b; } return o; }
int main() {
  const Comparator* c = BytewiseComparator();
  const unsigned char alphabet[] = {0x00, 0x01, 0x30, 0x31, 0x32, 0x61, 0x62, 0xfe, 0xff};
  printf("[\n");
  int n = 0;
  while (n < 400) {
    std::string a, b;
    int la = next() % 6, lb = next() % 6;
    for (int i = 0; i < la; i++) a += (char)alphabet[next() % 9];
    if (next() % 2) b = a.substr(0, next() % (la + 1));
    for (int i = 0; i < lb; i++) b += (char)alphabet[next() % 9];
    if (c->Compare(a, b) >= 0) continue;
    std::string sep = a;
    c->FindShortestSeparator(&sep, b);
    printf("%s[\"%s\",\"%s\",\"%s\"]\n", n ? "," : "", hex(a).c_str(), hex(b).c_str(), hex(sep).c_str());
    n++;
  }
  printf("]\n");
}
