;; RocksDB's Hash64 (the XXPH3 preview, seed 0; checksum-xxh3.ts) of short inputs, 4 to 64
;; bytes, for @shale/base's sliceHash64Into: the 64-bit multiplications JS lacks, done on
;; i64 in one instruction each. Assembled into hash64-wasm-bytes.ts by
;; scripts/build-checksum-wasm.mjs (wabt wat2wasm).
;;
;; The caller reads the input's little-endian 32-bit words and passes them (no copy into
;; memory): w0 = bytes [0, 4), w1 = [4, 8) from the start; for 9-16 bytes v0, v1 = the last
;; 8 bytes; for 17-32 bytes w0..w3 = the first 16, v0..v3 = the last 16 (they overlap when
;; the input is shorter than 32 bytes, as in XXH3); for 33-64 bytes the first and last 32.
;; Each function returns the hash's low 32 bits and stores the high 32 bits at memory[0] (little-endian), where the JS side reads
;; them through a Uint32Array: a returned i64 would reach JS as a BigInt.
;;
;; Memory: 1 page, never grown; only bytes [0, 4) are used.
(module
  (memory (export "memory") 1 1)

  ;; (lo, hi) 32-bit halves -> u64.
  (func $u64 (param $lo i32) (param $hi i32) (result i64)
    (i64.or (i64.extend_i32_u (local.get $lo))
            (i64.shl (i64.extend_i32_u (local.get $hi)) (i64.const 32))))

  ;; mul128_fold64(a, b): the 128-bit product's low 64 bits XOR its high 64 bits.
  (func $fold (param $a i64) (param $b i64) (result i64)
    (local $al i64) (local $ah i64) (local $bl i64) (local $bh i64)
    (local $p0 i64) (local $p1 i64) (local $p2 i64) (local $p3 i64) (local $mid i64)
    (local.set $al (i64.and (local.get $a) (i64.const 0xffffffff)))
    (local.set $ah (i64.shr_u (local.get $a) (i64.const 32)))
    (local.set $bl (i64.and (local.get $b) (i64.const 0xffffffff)))
    (local.set $bh (i64.shr_u (local.get $b) (i64.const 32)))
    (local.set $p0 (i64.mul (local.get $al) (local.get $bl)))
    (local.set $p1 (i64.mul (local.get $ah) (local.get $bl)))
    (local.set $p2 (i64.mul (local.get $al) (local.get $bh)))
    (local.set $p3 (i64.mul (local.get $ah) (local.get $bh)))
    ;; mid = (p0 >> 32) + low32(p1) + p2 <= 2^64 - 1: no overflow.
    (local.set $mid
      (i64.add (i64.add (i64.shr_u (local.get $p0) (i64.const 32))
                        (i64.and (local.get $p1) (i64.const 0xffffffff)))
               (local.get $p2)))
    ;; low = (mid << 32) | low32(p0); high = p3 + (p1 >> 32) + (mid >> 32).
    (i64.xor
      (i64.or (i64.shl (local.get $mid) (i64.const 32))
              (i64.and (local.get $p0) (i64.const 0xffffffff)))
      (i64.add (i64.add (local.get $p3) (i64.shr_u (local.get $p1) (i64.const 32)))
               (i64.shr_u (local.get $mid) (i64.const 32)))))

  ;; The preview's avalanche: h ^= h >> 37; h *= PRIME64_3 (0x165667b19e3779f9);
  ;; h ^= h >> 32. Stores the high half, returns the low half.
  (func $finish (param $h i64) (result i32)
    (local.set $h (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 37))))
    (local.set $h (i64.mul (local.get $h) (i64.const 0x165667b19e3779f9)))
    (local.set $h (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 32))))
    (i32.store (i32.const 0) (i32.wrap_i64 (i64.shr_u (local.get $h) (i64.const 32))))
    (i32.wrap_i64 (local.get $h)))

  ;; 4-8 bytes: keyed = (w0 | v0 << 32) ^ secret64(0), v0 = the last 4 bytes;
  ;; mix = len + (keyed ^ (keyed >> 51)) * PRIME32_1; h = (mix ^ (mix >> 47)) * PRIME64_2.
  (func (export "h4to8") (param $w0 i32) (param $v0 i32) (param $len i32) (result i32)
    (local $k i64)
    (local.set $k (i64.xor (call $u64 (local.get $w0) (local.get $v0))
                           (i64.const 0xbe4ba423396cfeb8)))
    (local.set $k
      (i64.add (i64.extend_i32_u (local.get $len))
               (i64.mul (i64.xor (local.get $k) (i64.shr_u (local.get $k) (i64.const 51)))
                        (i64.const 0x9e3779b1))))
    (call $finish
      (i64.mul (i64.xor (local.get $k) (i64.shr_u (local.get $k) (i64.const 47)))
               (i64.const 0xc2b2ae3d27d4eb4f))))

  ;; 9-16 bytes: lo = (w0 | w1 << 32) ^ secret64(0), hi = (v0 | v1 << 32) ^ secret64(8);
  ;; h = len + lo + hi + mul128_fold64(lo, hi).
  (func (export "h9to16") (param $w0 i32) (param $w1 i32) (param $v0 i32) (param $v1 i32)
                          (param $len i32) (result i32)
    (local $lo i64) (local $hi i64)
    (local.set $lo (i64.xor (call $u64 (local.get $w0) (local.get $w1))
                            (i64.const 0xbe4ba423396cfeb8)))
    (local.set $hi (i64.xor (call $u64 (local.get $v0) (local.get $v1))
                            (i64.const 0x1cad21f72c81017c)))
    (call $finish
      (i64.add (i64.add (i64.add (i64.extend_i32_u (local.get $len)) (local.get $lo))
                        (local.get $hi))
               (call $fold (local.get $lo) (local.get $hi)))))

  ;; 17-32 bytes: h = len * PRIME64_1 + mix16(first 16 bytes, secret[0, 16))
  ;;                + mix16(last 16 bytes, secret[16, 32)),
  ;; mix16(x, s) = mul128_fold64(x[0, 8) ^ s[0, 8), x[8, 16) ^ s[8, 16)).
  (func (export "h17to32") (param $w0 i32) (param $w1 i32) (param $w2 i32) (param $w3 i32)
                           (param $v0 i32) (param $v1 i32) (param $v2 i32) (param $v3 i32)
                           (param $len i32) (result i32)
    (call $finish
      (i64.add
        (i64.add (i64.mul (i64.extend_i32_u (local.get $len)) (i64.const 0x9e3779b185ebca87))
                 (call $fold
                   (i64.xor (call $u64 (local.get $w0) (local.get $w1))
                            (i64.const 0xbe4ba423396cfeb8))
                   (i64.xor (call $u64 (local.get $w2) (local.get $w3))
                            (i64.const 0x1cad21f72c81017c))))
        (call $fold
          (i64.xor (call $u64 (local.get $v0) (local.get $v1)) (i64.const 0xdb979083e96dd4de))
          (i64.xor (call $u64 (local.get $v2) (local.get $v3)) (i64.const 0x1f67b3b7a4a44072))))))

  ;; 33-64 bytes: h = len * PRIME64_1 + mix16(x[0, 16), s[0, 16)) + mix16(x[16, 32), s[32, 48))
  ;;                + mix16(x[len-32, len-16), s[48, 64)) + mix16(x[len-16, len), s[16, 32)),
  ;; w0..w7 = the first 32 bytes, v0..v7 = the last 32 (overlapping below 64).
  (func (export "h33to64") (param $w0 i32) (param $w1 i32) (param $w2 i32) (param $w3 i32)
                           (param $w4 i32) (param $w5 i32) (param $w6 i32) (param $w7 i32)
                           (param $v0 i32) (param $v1 i32) (param $v2 i32) (param $v3 i32)
                           (param $v4 i32) (param $v5 i32) (param $v6 i32) (param $v7 i32)
                           (param $len i32) (result i32)
    (call $finish
      (i64.add
        (i64.add
          (i64.add (i64.mul (i64.extend_i32_u (local.get $len)) (i64.const 0x9e3779b185ebca87))
                   (call $fold
                     (i64.xor (call $u64 (local.get $w0) (local.get $w1))
                              (i64.const 0xbe4ba423396cfeb8))
                     (i64.xor (call $u64 (local.get $w2) (local.get $w3))
                              (i64.const 0x1cad21f72c81017c))))
          (call $fold
            (i64.xor (call $u64 (local.get $w4) (local.get $w5)) (i64.const 0x78e5c0cc4ee679cb))
            (i64.xor (call $u64 (local.get $w6) (local.get $w7)) (i64.const 0x2172ffcc7dd05a82))))
        (i64.add
          (call $fold
            (i64.xor (call $u64 (local.get $v0) (local.get $v1)) (i64.const 0x8e2443f7744608b8))
            (i64.xor (call $u64 (local.get $v2) (local.get $v3)) (i64.const 0x4c263a81e69035e0)))
          (call $fold
            (i64.xor (call $u64 (local.get $v4) (local.get $v5)) (i64.const 0xdb979083e96dd4de))
            (i64.xor (call $u64 (local.get $v6) (local.get $v7))
                     (i64.const 0x1f67b3b7a4a44072)))))))
)
