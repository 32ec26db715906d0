/*
 * single-filter.c: filter-bench's "Single filter" query loop in C, as a measuring aid (not
 * part of any package, not built by CI). It answers one question: how fast can this machine
 * run the same query loop natively? Same filter (FastLocalBloom, 10 bits/key, 6 probes),
 * same hash (MurmurHash3_x86_128, first 64 bits, as @shale/bloom), same 16-byte keys and
 * the same round: draw inside/outside, draw a key number, make the key, hash it, probe.
 * net = gross - dry, where the dry run makes and hashes the keys only (filter-bench's
 * default, hashing excluded). One filter of N keys (no ±40 %), 20M queries per run.
 *
 *   gcc -O2 -march=native -o /tmp/single-filter apps/filter-bench/native/single-filter.c
 *   /tmp/single-filter 6000000     # keys in the filter (default 6000000)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline uint32_t rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

static inline uint32_t fmix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  return h ^ (h >> 16);
}

/* MurmurHash3_x86_128, seed 0, of a 16-byte key: the first two output words. */
static inline void hash16(const uint8_t *key, uint32_t *lo, uint32_t *hi) {
  const uint32_t c1 = 0x239b961b, c2 = 0xab0e9789, c3 = 0x38b34ae5, c4 = 0xa1e38b93;
  uint32_t k1, k2, k3, k4, h1 = 0, h2 = 0, h3 = 0, h4 = 0;
  memcpy(&k1, key, 4);
  memcpy(&k2, key + 4, 4);
  memcpy(&k3, key + 8, 4);
  memcpy(&k4, key + 12, 4);
  k1 *= c1; k1 = rotl(k1, 15); k1 *= c2; h1 ^= k1; h1 = rotl(h1, 19); h1 += h2; h1 = h1 * 5 + 0x561ccd1b;
  k2 *= c2; k2 = rotl(k2, 16); k2 *= c3; h2 ^= k2; h2 = rotl(h2, 17); h2 += h3; h2 = h2 * 5 + 0x0bcaa747;
  k3 *= c3; k3 = rotl(k3, 17); k3 *= c4; h3 ^= k3; h3 = rotl(h3, 15); h3 += h4; h3 = h3 * 5 + 0x96cd1c35;
  k4 *= c4; k4 = rotl(k4, 18); k4 *= c1; h4 ^= k4; h4 = rotl(h4, 13); h4 += h1; h4 = h4 * 5 + 0x32ac3b17;
  h1 ^= 16; h2 ^= 16; h3 ^= 16; h4 ^= 16;
  h1 += h2 + h3 + h4; h2 += h1; h3 += h1; h4 += h1;
  h1 = fmix(h1); h2 = fmix(h2); h3 = fmix(h3); h4 = fmix(h4);
  h1 += h2 + h3 + h4;
  *lo = h1;
  *hi = h2 + h1;
}

static uint32_t state = 1;
static inline uint32_t next(void) {
  uint32_t x = state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return state = x;
}
static inline uint32_t uniformish(uint32_t n) { return (uint32_t)(((uint64_t)next() * n) >> 32); }

/* filter-bench's key: valNum, then filterId + valNum, little-endian; bytes 8..15 zero. */
static inline void make_key(uint8_t *k, uint32_t filter_id, uint32_t val) {
  uint32_t mixed = filter_id + val;
  memcpy(k, &val, 4);
  memcpy(k + 4, &mixed, 4);
}

static double cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv) {
  const uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 6000000;
  const uint32_t lines = (uint32_t)(((uint64_t)n * 10000 + 511999) / 512000);
  uint8_t *bits = aligned_alloc(64, (size_t)lines * 64);
  memset(bits, 0, (size_t)lines * 64);
  uint8_t key[16] = {0};
  for (uint32_t i = 0; i < n; i++) {
    uint32_t lo, hi;
    make_key(key, 0, i);
    hash16(key, &lo, &hi);
    uint8_t *line = bits + (((uint64_t)lo * lines) >> 32) * 64;
    for (int p = 0; p < 6; p++, hi *= 0x9e3779b9) line[(hi >> 23) >> 3] |= 1 << ((hi >> 23) & 7);
  }
  const int queries = 20000000;
  for (int run = 0; run < 3; run++) {
    double ns[2];
    uint64_t sink = 0, fp = 0, outside = 0;
    for (int dry = 1; dry >= 0; dry--) {
      state = 12345;
      double t0 = cpu_ns();
      for (int q = 0; q < queries; q++) {
        int inside = next() <= 0x7fffffffu;
        next(); /* filter-bench draws the primary/secondary choice here */
        uint32_t v = uniformish(n);
        if (!inside) v |= 0x80000000u;
        make_key(key, 0, v);
        uint32_t lo, hi;
        hash16(key, &lo, &hi);
        if (dry) {
          sink += lo;
          continue;
        }
        const uint8_t *line = bits + (((uint64_t)lo * lines) >> 32) * 64;
        int all = 1;
        for (int p = 0; p < 6; p++, hi *= 0x9e3779b9) all &= line[(hi >> 23) >> 3] >> ((hi >> 23) & 7);
        if (inside) {
          if (!(all & 1)) {
            fprintf(stderr, "false negative: key #%u\n", v);
            return 1;
          }
        } else {
          outside++;
          fp += all & 1;
        }
      }
      ns[dry] = (cpu_ns() - t0) / queries;
    }
    printf("%u keys, %.2f MB: dry %.1f gross %.1f net %.1f ns/op, FP rate %.3f %% (sink %u)\n", n,
           lines * 64 / 1e6, ns[1], ns[0], ns[0] - ns[1], 100.0 * fp / outside, (unsigned)(sink & 0xff));
  }
  return 0;
}
