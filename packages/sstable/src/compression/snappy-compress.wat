;; Snappy compression in WebAssembly, for blocks copied into this module's memory. Build:
;; scripts/build-wasm.mjs (wabt's wat2wasm) writes src/snappy-compress-wasm.ts; CI only
;; loads the bytes. The wrapper is snappy-compress.ts.
;;
;; The stream (Snappy's format, as snappy-decode.ts draws it): varint32 uncompressed length,
;; then elements — literals (tag 00, length - 1 in the tag's high 6 bits, or 60/61 for one or
;; two more little-endian length bytes) and copies (tag 01: length 4..11, offset < 2048 in
;; 3 + 8 bits; tag 10: length 1..64, 16-bit little-endian offset).
;;
;; The algorithm is Snappy's own: the input is cut in fragments of at most 64 KiB, compressed
;; alone (offsets stay below 65536, so no 4-byte-offset copies). In a fragment a hash table
;; of 4-byte sequences (2^8..2^14 16-bit positions, the fewest slots that cover the fragment)
;; finds a candidate for the bytes at each position; a candidate whose 4 bytes match starts
;; a copy, extended 8 bytes at a time. Between matches the search skips ahead faster the
;; longer it has found nothing (one more byte per 32 misses), so incompressible input costs
;; little. Copies longer than 64 are cut in 64s, keeping the last piece at 4 or more.
;;
;; Memory: [hash table, 32 KiB][input][output]; the caller grows it (input n bytes, output
;; at most maxCompressedLength(n) = 32 + n + n / 6, plus 16 bytes of slack: literals of up to
;; 16 bytes move two 8-byte words and may write up to 15 bytes past their end).
;;
;; compress(in, n, out): compresses memory[in, in + n) to memory[out, ...) and returns the
;; number of bytes written. REQUIRES: in >= 32768 (after the table), n < 2^32 - 1.
(module
  (memory (export "memory") 1)

  ;; The slot of the 4 bytes at $p: Snappy's multiplicative hash, top `32 - shift` bits.
  (func $hash (param $p i32) (param $shift i32) (result i32)
    (i32.shl
      (i32.shr_u (i32.mul (i32.load (local.get $p)) (i32.const 0x1e35a7bd)) (local.get $shift))
      (i32.const 1)))

  ;; How many bytes from $a and $b (a < b) are equal, reading no further than $end from $b.
  (func $matchLength (param $a i32) (param $b i32) (param $end i32) (result i32)
    (local $n i32) (local $x i64)
    (block $done
      (loop $words
        (br_if $done (i32.gt_u (i32.add (i32.add (local.get $b) (local.get $n)) (i32.const 8))
          (local.get $end)))
        (local.set $x (i64.xor (i64.load (i32.add (local.get $a) (local.get $n)))
          (i64.load (i32.add (local.get $b) (local.get $n)))))
        (if (i64.ne (local.get $x) (i64.const 0))
          (then
            (return (i32.add (local.get $n)
              (i32.wrap_i64 (i64.shr_u (i64.ctz (local.get $x)) (i64.const 3)))))))
        (local.set $n (i32.add (local.get $n) (i32.const 8)))
        (br $words)))
    (block $bytes_done
      (loop $bytes
        (br_if $bytes_done (i32.ge_u (i32.add (local.get $b) (local.get $n)) (local.get $end)))
        (br_if $bytes_done (i32.ne (i32.load8_u (i32.add (local.get $a) (local.get $n)))
          (i32.load8_u (i32.add (local.get $b) (local.get $n)))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $bytes)))
    (local.get $n))

  ;; Emits the literal memory[$src, $src + $len) at $op ($len in 1..65536); returns the new $op.
  (func $literal (param $src i32) (param $len i32) (param $op i32) (result i32)
    (local $n i32)
    (local.set $n (i32.sub (local.get $len) (i32.const 1)))
    (if (i32.lt_u (local.get $n) (i32.const 60))
      (then
        (i32.store8 (local.get $op) (i32.shl (local.get $n) (i32.const 2)))
        (local.set $op (i32.add (local.get $op) (i32.const 1))))
      (else
        (if (i32.lt_u (local.get $n) (i32.const 256))
          (then
            (i32.store8 (local.get $op) (i32.const 240)) ;; 60 << 2
            (i32.store8 offset=1 (local.get $op) (local.get $n))
            (local.set $op (i32.add (local.get $op) (i32.const 2))))
          (else
            (i32.store8 (local.get $op) (i32.const 244)) ;; 61 << 2
            (i32.store16 offset=1 (local.get $op) (local.get $n))
            (local.set $op (i32.add (local.get $op) (i32.const 3)))))))
    (if (i32.le_u (local.get $len) (i32.const 16))
      (then
        (i64.store (local.get $op) (i64.load (local.get $src)))
        (i64.store offset=8 (local.get $op) (i64.load offset=8 (local.get $src))))
      (else (memory.copy (local.get $op) (local.get $src) (local.get $len))))
    (i32.add (local.get $op) (local.get $len)))

  ;; Emits one copy of $len (4..64) bytes at distance $offset (1..65535); returns the new $op.
  (func $copyUpTo64 (param $op i32) (param $offset i32) (param $len i32) (result i32)
    (if (result i32)
      (i32.and (i32.lt_u (local.get $len) (i32.const 12))
        (i32.lt_u (local.get $offset) (i32.const 2048)))
      (then
        (i32.store8 (local.get $op)
          (i32.or (i32.or (i32.const 1) (i32.shl (i32.sub (local.get $len) (i32.const 4)) (i32.const 2)))
            (i32.shl (i32.shr_u (local.get $offset) (i32.const 8)) (i32.const 5))))
        (i32.store8 offset=1 (local.get $op) (local.get $offset))
        (i32.add (local.get $op) (i32.const 2)))
      (else
        (i32.store8 (local.get $op)
          (i32.or (i32.const 2) (i32.shl (i32.sub (local.get $len) (i32.const 1)) (i32.const 2))))
        (i32.store16 offset=1 (local.get $op) (local.get $offset))
        (i32.add (local.get $op) (i32.const 3)))))

  ;; Emits a copy of $len (>= 4) bytes at distance $offset; returns the new $op.
  (func $copy (param $op i32) (param $offset i32) (param $len i32) (result i32)
    (block $short
      (loop $long
        (br_if $short (i32.lt_u (local.get $len) (i32.const 68)))
        (local.set $op (call $copyUpTo64 (local.get $op) (local.get $offset) (i32.const 64)))
        (local.set $len (i32.sub (local.get $len) (i32.const 64)))
        (br $long)))
    (if (i32.gt_u (local.get $len) (i32.const 64))
      (then
        (local.set $op (call $copyUpTo64 (local.get $op) (local.get $offset) (i32.const 60)))
        (local.set $len (i32.sub (local.get $len) (i32.const 60)))))
    (call $copyUpTo64 (local.get $op) (local.get $offset) (local.get $len)))

  ;; Compresses the fragment memory[$base, $base + $len) ($len in 1..65536) to $op; returns
  ;; the new $op.
  (func $fragment (param $base i32) (param $len i32) (param $op i32) (result i32)
    (local $bits i32) (local $shift i32) (local $end i32) (local $limit i32) (local $ip i32)
    (local $nextIp i32) (local $nextEmit i32) (local $candidate i32) (local $h i32)
    (local $nextHash i32) (local $skip i32) (local $step i32) (local $matched i32)
    (local.set $end (i32.add (local.get $base) (local.get $len)))
    (local.set $nextEmit (local.get $base))
    ;; Table slots: the smallest power of two >= len, in [2^8, 2^14].
    (local.set $bits (i32.const 8))
    (block $sized
      (loop $grow
        (br_if $sized (i32.ge_u (i32.shl (i32.const 1) (local.get $bits)) (local.get $len)))
        (br_if $sized (i32.ge_u (local.get $bits) (i32.const 14)))
        (local.set $bits (i32.add (local.get $bits) (i32.const 1)))
        (br $grow)))
    (local.set $shift (i32.sub (i32.const 32) (local.get $bits)))
    (memory.fill (i32.const 0) (i32.const 0) (i32.shl (i32.const 2) (local.get $bits)))
    (block $remainder
      ;; Shorter than 15 bytes: one literal (the loads below need that margin).
      (br_if $remainder (i32.lt_u (local.get $len) (i32.const 15)))
      (local.set $limit (i32.sub (local.get $end) (i32.const 15)))
      (local.set $ip (i32.add (local.get $base) (i32.const 1)))
      (local.set $nextHash (call $hash (local.get $ip) (local.get $shift)))
      (loop $search_again
        ;; Find a position whose 4 bytes match their candidate's.
        (local.set $skip (i32.const 32))
        (local.set $nextIp (local.get $ip))
        (loop $search
          (local.set $ip (local.get $nextIp))
          (local.set $h (local.get $nextHash))
          (local.set $step (i32.shr_u (local.get $skip) (i32.const 5)))
          (local.set $skip (i32.add (local.get $skip) (local.get $step)))
          (local.set $nextIp (i32.add (local.get $ip) (local.get $step)))
          (br_if $remainder (i32.gt_u (local.get $nextIp) (local.get $limit)))
          (local.set $nextHash (call $hash (local.get $nextIp) (local.get $shift)))
          (local.set $candidate (i32.add (local.get $base) (i32.load16_u (local.get $h))))
          (i32.store16 (local.get $h) (i32.sub (local.get $ip) (local.get $base)))
          (br_if $search (i32.ne (i32.load (local.get $ip)) (i32.load (local.get $candidate)))))
        (local.set $op (call $literal (local.get $nextEmit)
          (i32.sub (local.get $ip) (local.get $nextEmit)) (local.get $op)))
        ;; Copies, for as long as the bytes after one match again.
        (loop $copies
          (local.set $matched (i32.add (i32.const 4)
            (call $matchLength (i32.add (local.get $candidate) (i32.const 4))
              (i32.add (local.get $ip) (i32.const 4)) (local.get $end))))
          (local.set $op (call $copy (local.get $op)
            (i32.sub (local.get $ip) (local.get $candidate)) (local.get $matched)))
          (local.set $ip (i32.add (local.get $ip) (local.get $matched)))
          (local.set $nextEmit (local.get $ip))
          (br_if $remainder (i32.ge_u (local.get $ip) (local.get $limit)))
          ;; Remember the position before the match's end, and try the one at its end.
          (i32.store16 (call $hash (i32.sub (local.get $ip) (i32.const 1)) (local.get $shift))
            (i32.sub (i32.sub (local.get $ip) (local.get $base)) (i32.const 1)))
          (local.set $h (call $hash (local.get $ip) (local.get $shift)))
          (local.set $candidate (i32.add (local.get $base) (i32.load16_u (local.get $h))))
          (i32.store16 (local.get $h) (i32.sub (local.get $ip) (local.get $base)))
          (br_if $copies (i32.eq (i32.load (local.get $ip)) (i32.load (local.get $candidate)))))
        (local.set $ip (i32.add (local.get $ip) (i32.const 1)))
        (local.set $nextHash (call $hash (local.get $ip) (local.get $shift)))
        (br $search_again)))
    (if (i32.lt_u (local.get $nextEmit) (local.get $end))
      (then
        (local.set $op (call $literal (local.get $nextEmit)
          (i32.sub (local.get $end) (local.get $nextEmit)) (local.get $op)))))
    (local.get $op))

  (func (export "compress") (param $in i32) (param $n i32) (param $out i32) (result i32)
    (local $op i32) (local $v i32) (local $pos i32) (local $len i32)
    (local.set $op (local.get $out))
    ;; The uncompressed length, varint32.
    (local.set $v (local.get $n))
    (block $header
      (loop $bytes
        (if (i32.lt_u (local.get $v) (i32.const 128))
          (then
            (i32.store8 (local.get $op) (local.get $v))
            (local.set $op (i32.add (local.get $op) (i32.const 1)))
            (br $header)))
        (i32.store8 (local.get $op) (i32.or (local.get $v) (i32.const 128)))
        (local.set $op (i32.add (local.get $op) (i32.const 1)))
        (local.set $v (i32.shr_u (local.get $v) (i32.const 7)))
        (br $bytes)))
    (block $done
      (loop $fragments
        (br_if $done (i32.ge_u (local.get $pos) (local.get $n)))
        (local.set $len (i32.sub (local.get $n) (local.get $pos)))
        (if (i32.gt_u (local.get $len) (i32.const 65536))
          (then (local.set $len (i32.const 65536))))
        (local.set $op (call $fragment (i32.add (local.get $in) (local.get $pos)) (local.get $len)
          (local.get $op)))
        (local.set $pos (i32.add (local.get $pos) (local.get $len)))
        (br $fragments)))
    (i32.sub (local.get $op) (local.get $out)))
)
