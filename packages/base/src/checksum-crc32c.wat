;; CRC32C (Castagnoli), slicing-by-8 and slicing-by-16, for @shale/base's checksum.ts.
;; Assembled into checksum-crc32c-wasm.ts by scripts/build-checksum-wasm.mjs (wabt wat2wasm).
;;
;; Memory (exported, 2 pages = 128 KiB, never grown):
;;   [0, 16384)       16 tables x 256 x i32, T[k][b] at k*1024 + b*4 (filled by the JS side
;;                    from CRC32C_TABLES at instantiation: T[k][b] = CRC of b then k zeros)
;;   [16384, 131072)  the input, copied in by the caller, at most 114,688 bytes a call
;;
;; crc32c8(crc, ptr, len) / crc32c16(crc, ptr, len) -> crc: RocksDB's crc32c::Extend of
;; memory[ptr, ptr + len), inversions included. Little-endian loads (wasm is always LE).
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
)
