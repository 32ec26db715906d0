;; RocksDB's Hash64 (the XXPH3 preview, seed 0; checksum-xxh3.ts) of inputs of 4 to 240
;; bytes, for @shale/base's sliceHash64Into: the 64-bit multiplications JS lacks, done on
;; i64 in one instruction each. Assembled into hash64-wasm-bytes.ts by
;; scripts/build-checksum-wasm.mjs (wabt wat2wasm).
;;
;; The caller reads the input's little-endian 32-bit words and passes them (no copy into
;; memory): w0 = bytes [0, 4), w1 = [4, 8) from the start; for 9-16 bytes v0, v1 = the last
;; 8 bytes; for 17-32 bytes w0..w3 = the first 16, v0..v3 = the last 16 (they overlap when
;; the input is shorter than 32 bytes, as in XXH3); for 33-64 bytes the first and last 32.
;; Inputs of 65-240 bytes are too many words for arguments: the caller copies them to
;; memory[256, 256 + len) and calls h65to240(len), which reads them there beside the secret.
;; Each function returns the hash's low 32 bits and stores the high 32 bits at memory[0] (little-endian), where the JS side reads
;; them through a Uint32Array: a returned i64 would reach JS as a BigInt.
;;
;; Memory: 1 page, never grown:
;;   [0, 4)      the high half of the last hash
;;   [64, 256)   the default secret (kSecret, 192 bytes; a data segment)
;;   [256, 496)  the input of h65to240
(module
  (memory (export "memory") 1 1)
  (data (i32.const 64)
    "\b8\fe\6c\39\23\a4\4b\be\7c\01\81\2c\f7\21\ad\1c\de\d4\6d\e9\83\90\97\db\72\40\a4\a4\b7\b3\67\1f"
    "\cb\79\e6\4e\cc\c0\e5\78\82\5a\d0\7d\cc\ff\72\21\b8\08\46\74\f7\43\24\8e\e0\35\90\e6\81\3a\26\4c"
    "\3c\28\52\bb\91\c3\00\cb\88\d0\65\8b\1b\53\2e\a3\71\64\48\97\a2\0d\f9\4e\38\19\ef\46\a9\de\ac\d8"
    "\a8\fa\76\3f\e3\9c\34\3f\f9\dc\bb\c7\c7\0b\4f\1d\8a\51\e0\4b\cd\b4\59\31\c8\9f\7e\c9\d9\78\73\64"
    "\ea\c5\ac\83\34\d3\eb\c3\c5\81\a0\ff\fa\13\63\eb\17\0d\dd\51\b7\f0\da\49\d3\16\55\26\29\d4\68\9e"
    "\2b\16\be\58\7d\47\a1\fc\8f\f8\b8\d1\7a\d0\31\ce\45\cb\3a\8f\95\16\04\28\af\d7\fb\ca\bb\4b\40\7e")

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

  ;; The preview's avalanche: h ^= h >> 37; h *= PRIME64_3; h ^= h >> 32.
  (func $avalanche (param $h i64) (result i64)
    (local.set $h (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 37))))
    (local.set $h (i64.mul (local.get $h) (i64.const 0x165667b19e3779f9)))
    (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 32))))

  ;; The avalanche's result: stores the high half, returns the low half.
  (func $finish (param $h i64) (result i32)
    (local.set $h (call $avalanche (local.get $h)))
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

  ;; mix16 of the input's bytes [p, p + 16) (at memory[256 + p]) and the secret's
  ;; [s, s + 16) (at memory[64 + s]): mul128_fold64(x[0, 8) ^ s[0, 8), x[8, 16) ^ s[8, 16)).
  (func $mix16 (param $p i32) (param $s i32) (result i64)
    (call $fold
      (i64.xor (i64.load offset=256 (local.get $p)) (i64.load offset=64 (local.get $s)))
      (i64.xor (i64.load offset=264 (local.get $p)) (i64.load offset=72 (local.get $s)))))

  ;; 65-240 bytes, read from memory[256, 256 + len) (checksum-xxh3.ts len17to128 and
  ;; len129to240; the sums are mod 2^64, so their order is free):
  ;;   65-128: h = len * PRIME64_1 + mix16(x[0], s[0]) + mix16(x[len-16], s[16])
  ;;           + mix16(x[16], s[32]) + mix16(x[len-32], s[48]) + mix16(x[32], s[64])
  ;;           + mix16(x[len-48], s[80]) (+ mix16(x[48], s[96]) + mix16(x[len-64], s[112])
  ;;           above 96 bytes)
  ;;   129-240: h = avalanche(len * PRIME64_1 + mix16(x[16i], s[16i]) for i < 8)
  ;;           + mix16(x[16i], s[16(i-8) + 3]) for 8 <= i < len / 16 + mix16(x[len-16], s[119])
  (func (export "h65to240") (param $len i32) (result i32)
    (local $acc i64) (local $i i32) (local $rounds i32)
    (local.set $acc (i64.mul (i64.extend_i32_u (local.get $len)) (i64.const 0x9e3779b185ebca87)))
    (if (i32.le_u (local.get $len) (i32.const 128))
      (then
        (if (i32.gt_u (local.get $len) (i32.const 96))
          (then
            (local.set $acc (i64.add (local.get $acc)
              (i64.add (call $mix16 (i32.const 48) (i32.const 96))
                       (call $mix16 (i32.sub (local.get $len) (i32.const 64)) (i32.const 112)))))))
        (local.set $acc (i64.add (local.get $acc)
          (i64.add (call $mix16 (i32.const 32) (i32.const 64))
                   (call $mix16 (i32.sub (local.get $len) (i32.const 48)) (i32.const 80)))))
        (local.set $acc (i64.add (local.get $acc)
          (i64.add (call $mix16 (i32.const 16) (i32.const 32))
                   (call $mix16 (i32.sub (local.get $len) (i32.const 32)) (i32.const 48)))))
        (local.set $acc (i64.add (local.get $acc)
          (i64.add (call $mix16 (i32.const 0) (i32.const 0))
                   (call $mix16 (i32.sub (local.get $len) (i32.const 16)) (i32.const 16)))))
        (return (call $finish (local.get $acc)))))
    (loop $first
      (local.set $acc (i64.add (local.get $acc)
        (call $mix16 (i32.shl (local.get $i) (i32.const 4)) (i32.shl (local.get $i) (i32.const 4)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $first (i32.lt_u (local.get $i) (i32.const 8))))
    (local.set $acc (call $avalanche (local.get $acc)))
    (local.set $rounds (i32.shr_u (local.get $len) (i32.const 4)))
    (block $done
      (loop $rest
        (br_if $done (i32.ge_u (local.get $i) (local.get $rounds)))
        (local.set $acc (i64.add (local.get $acc)
          (call $mix16 (i32.shl (local.get $i) (i32.const 4))
                       (i32.add (i32.shl (i32.sub (local.get $i) (i32.const 8)) (i32.const 4))
                                (i32.const 3)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rest)))
    (call $finish (i64.add (local.get $acc)
      (call $mix16 (i32.sub (local.get $len) (i32.const 16)) (i32.const 119)))))
)
