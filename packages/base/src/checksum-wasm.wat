;; CRC32C (Castagnoli), slicing-by-8 and slicing-by-16, and XXH32, for @shale/base's checksum.ts.
;; Assembled into checksum-wasm-bytes.ts by scripts/build-checksum-wasm.mjs (wabt wat2wasm).
;;
;; Memory (exported, 2 pages = 128 KiB, never grown):
;;   [0, 16384)       16 tables x 256 x i32, T[k][b] at k*1024 + b*4 (filled by the JS side
;;                    from CRC32C_TABLES at instantiation: T[k][b] = CRC of b then k zeros)
;;   [16384, 131072)  the input, copied in by the caller, at most 114,688 bytes a call
;;
;; crc32c8(crc, ptr, len) / crc32c16(crc, ptr, len) -> crc: RocksDB's crc32c::Extend of
;; memory[ptr, ptr + len), inversions included. Little-endian loads (wasm is always LE).
;; xxh32(ptr, len, seed) -> XXH32 of the same region.
(module
  (memory (export "memory") 2)

  ;; Byte at a time: crc = T[0][(crc ^ byte) & 255] ^ (crc >>> 8).
  (func $tail (param $c i32) (param $p i32) (param $end i32) (result i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $c
          (i32.xor
            (i32.load (i32.shl (i32.and (i32.xor (local.get $c) (i32.load8_u (local.get $p)))
                                        (i32.const 255))
                               (i32.const 2)))
            (i32.shr_u (local.get $c) (i32.const 8))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next)))
    (local.get $c))

  (func (export "crc32c8") (param $crc i32) (param $p i32) (param $len i32) (result i32)
    (local $end i32) (local $stop i32) (local $a i32) (local $b i32)
    (local.set $end (i32.add (local.get $p) (local.get $len)))
    (local.set $stop (i32.add (local.get $p) (i32.and (local.get $len) (i32.const -8))))
    (local.set $crc (i32.xor (local.get $crc) (i32.const -1)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $stop)))
        (local.set $a (i32.xor (local.get $crc) (i32.load (local.get $p))))
        (local.set $b (i32.load offset=4 (local.get $p)))
        (local.set $crc
          (i32.xor (i32.xor (i32.xor (i32.xor (i32.xor (i32.xor (i32.xor (i32.load offset=7168 (i32.shl (i32.and (local.get $a) (i32.const 255)) (i32.const 2)))
              (i32.load offset=6144 (i32.shl (i32.and (i32.shr_u (local.get $a) (i32.const 8)) (i32.const 255)) (i32.const 2))))
              (i32.load offset=5120 (i32.shl (i32.and (i32.shr_u (local.get $a) (i32.const 16)) (i32.const 255)) (i32.const 2))))
              (i32.load offset=4096 (i32.shl (i32.shr_u (local.get $a) (i32.const 24)) (i32.const 2))))
              (i32.load offset=3072 (i32.shl (i32.and (local.get $b) (i32.const 255)) (i32.const 2))))
              (i32.load offset=2048 (i32.shl (i32.and (i32.shr_u (local.get $b) (i32.const 8)) (i32.const 255)) (i32.const 2))))
              (i32.load offset=1024 (i32.shl (i32.and (i32.shr_u (local.get $b) (i32.const 16)) (i32.const 255)) (i32.const 2))))
              (i32.load offset=0 (i32.shl (i32.shr_u (local.get $b) (i32.const 24)) (i32.const 2)))))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br $next)))
    (i32.xor (call $tail (local.get $crc) (local.get $p) (local.get $end)) (i32.const -1)))

  (func (export "crc32c16") (param $crc i32) (param $p i32) (param $len i32) (result i32)
    (local $end i32) (local $stop i32) (local $a i32) (local $b i32) (local $c i32) (local $d i32)
    (local.set $end (i32.add (local.get $p) (local.get $len)))
    (local.set $stop (i32.add (local.get $p) (i32.and (local.get $len) (i32.const -16))))
    (local.set $crc (i32.xor (local.get $crc) (i32.const -1)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $stop)))
        (local.set $a (i32.xor (local.get $crc) (i32.load (local.get $p))))
        (local.set $b (i32.load offset=4 (local.get $p)))
        (local.set $c (i32.load offset=8 (local.get $p)))
        (local.set $d (i32.load offset=12 (local.get $p)))
        (local.set $crc
          (i32.xor (i32.xor (i32.xor (i32.xor (i32.xor (i32.xor (i32.xor (i32.xor (i32.xor (i32.xor (i32.xor (i32.xor (i32.xor (i32.xor (i32.xor (i32.load offset=15360 (i32.shl (i32.and (local.get $a) (i32.const 255)) (i32.const 2)))
              (i32.load offset=14336 (i32.shl (i32.and (i32.shr_u (local.get $a) (i32.const 8)) (i32.const 255)) (i32.const 2))))
              (i32.load offset=13312 (i32.shl (i32.and (i32.shr_u (local.get $a) (i32.const 16)) (i32.const 255)) (i32.const 2))))
              (i32.load offset=12288 (i32.shl (i32.shr_u (local.get $a) (i32.const 24)) (i32.const 2))))
              (i32.load offset=11264 (i32.shl (i32.and (local.get $b) (i32.const 255)) (i32.const 2))))
              (i32.load offset=10240 (i32.shl (i32.and (i32.shr_u (local.get $b) (i32.const 8)) (i32.const 255)) (i32.const 2))))
              (i32.load offset=9216 (i32.shl (i32.and (i32.shr_u (local.get $b) (i32.const 16)) (i32.const 255)) (i32.const 2))))
              (i32.load offset=8192 (i32.shl (i32.shr_u (local.get $b) (i32.const 24)) (i32.const 2))))
              (i32.load offset=7168 (i32.shl (i32.and (local.get $c) (i32.const 255)) (i32.const 2))))
              (i32.load offset=6144 (i32.shl (i32.and (i32.shr_u (local.get $c) (i32.const 8)) (i32.const 255)) (i32.const 2))))
              (i32.load offset=5120 (i32.shl (i32.and (i32.shr_u (local.get $c) (i32.const 16)) (i32.const 255)) (i32.const 2))))
              (i32.load offset=4096 (i32.shl (i32.shr_u (local.get $c) (i32.const 24)) (i32.const 2))))
              (i32.load offset=3072 (i32.shl (i32.and (local.get $d) (i32.const 255)) (i32.const 2))))
              (i32.load offset=2048 (i32.shl (i32.and (i32.shr_u (local.get $d) (i32.const 8)) (i32.const 255)) (i32.const 2))))
              (i32.load offset=1024 (i32.shl (i32.and (i32.shr_u (local.get $d) (i32.const 16)) (i32.const 255)) (i32.const 2))))
              (i32.load offset=0 (i32.shl (i32.shr_u (local.get $d) (i32.const 24)) (i32.const 2)))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $next)))
    (i32.xor (call $tail (local.get $crc) (local.get $p) (local.get $end)) (i32.const -1)))

  ;; xxh32(p, len, seed) -> XXH32 of memory[p, p + len) (the same input region).
  (func (export "xxh32") (param $p i32) (param $len i32) (param $seed i32) (result i32)
    (local $end i32) (local $limit i32) (local $h i32)
    (local $v1 i32) (local $v2 i32) (local $v3 i32) (local $v4 i32)
    (local.set $end (i32.add (local.get $p) (local.get $len)))
    (if (i32.ge_u (local.get $len) (i32.const 16))
      (then
        (local.set $v1 (i32.add (local.get $seed) (i32.const 0x24234428)))  ;; P1 + P2
        (local.set $v2 (i32.add (local.get $seed) (i32.const 0x85ebca77)))  ;; P2
        (local.set $v3 (local.get $seed))
        (local.set $v4 (i32.sub (local.get $seed) (i32.const 0x9e3779b1)))  ;; - P1
        (local.set $limit (i32.sub (local.get $end) (i32.const 16)))
        (block $done
          (loop $next
            (br_if $done (i32.gt_u (local.get $p) (local.get $limit)))
            ;; round: rotl(v + input * P2, 13) * P1
            (local.set $v1 (i32.mul (i32.rotl (i32.add (local.get $v1) (i32.mul (i32.load (local.get $p)) (i32.const 0x85ebca77)))
                                        (i32.const 13))
                              (i32.const 0x9e3779b1)))
            (local.set $v2 (i32.mul (i32.rotl (i32.add (local.get $v2) (i32.mul (i32.load offset=4 (local.get $p)) (i32.const 0x85ebca77)))
                                        (i32.const 13))
                              (i32.const 0x9e3779b1)))
            (local.set $v3 (i32.mul (i32.rotl (i32.add (local.get $v3) (i32.mul (i32.load offset=8 (local.get $p)) (i32.const 0x85ebca77)))
                                        (i32.const 13))
                              (i32.const 0x9e3779b1)))
            (local.set $v4 (i32.mul (i32.rotl (i32.add (local.get $v4) (i32.mul (i32.load offset=12 (local.get $p)) (i32.const 0x85ebca77)))
                                        (i32.const 13))
                              (i32.const 0x9e3779b1)))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (br $next)))
        (local.set $h
          (i32.add
            (i32.add (i32.rotl (local.get $v1) (i32.const 1)) (i32.rotl (local.get $v2) (i32.const 7)))
            (i32.add (i32.rotl (local.get $v3) (i32.const 12)) (i32.rotl (local.get $v4) (i32.const 18))))))
      (else
        (local.set $h (i32.add (local.get $seed) (i32.const 0x165667b1)))))  ;; P5
    (local.set $h (i32.add (local.get $h) (local.get $len)))
    (block $done4
      (loop $next4
        (br_if $done4 (i32.gt_u (i32.add (local.get $p) (i32.const 4)) (local.get $end)))
        (local.set $h
          (i32.mul
            (i32.rotl
              (i32.add (local.get $h) (i32.mul (i32.load (local.get $p)) (i32.const 0xc2b2ae3d)))  ;; P3
              (i32.const 17))
            (i32.const 0x27d4eb2f)))  ;; P4
        (local.set $p (i32.add (local.get $p) (i32.const 4)))
        (br $next4)))
    (block $done1
      (loop $next1
        (br_if $done1 (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $h
          (i32.mul
            (i32.rotl
              (i32.add (local.get $h) (i32.mul (i32.load8_u (local.get $p)) (i32.const 0x165667b1)))  ;; P5
              (i32.const 11))
            (i32.const 0x9e3779b1)))  ;; P1
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $next1)))
    (local.set $h (i32.xor (local.get $h) (i32.shr_u (local.get $h) (i32.const 15))))
    (local.set $h (i32.mul (local.get $h) (i32.const 0x85ebca77)))  ;; P2
    (local.set $h (i32.xor (local.get $h) (i32.shr_u (local.get $h) (i32.const 13))))
    (local.set $h (i32.mul (local.get $h) (i32.const 0xc2b2ae3d)))  ;; P3
    (i32.xor (local.get $h) (i32.shr_u (local.get $h) (i32.const 16))))

)
