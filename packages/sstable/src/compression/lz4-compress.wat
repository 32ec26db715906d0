;; LZ4 block compression in WebAssembly, for blocks copied into this module's memory. Build:
;; scripts/build-wasm.mjs (wabt's wat2wasm) writes src/lz4-compress-wasm.ts; CI only loads
;; the bytes. The wrapper is lz4-wasm.ts.
;;
;; The algorithm is lz4-compress.ts's, step for step, so both write the same bytes for the
;; same input (a test compares them): lz4's fast greedy search (4-byte sequences hashed to 13
;; bits by x * 2654435761; a candidate within 65,535 bytes whose 4 bytes are equal starts a
;; match; 64 misses in a row lengthen the step by one), a match extended backwards over equal
;; literals, then forwards (8 bytes at a time) to 5 bytes before the end; the position 2
;; before its end is hashed; no match starts later than 12 bytes before the end. The block
;; format (token, literal-length extension, literals, 16-bit little-endian offset,
;; match-length extension) is drawn in compression-lz4.ts.
;;
;; Hash table: 8,192 i32 slots at memory[0, 32768), each `generation + position`; a call
;; takes the positions [gen, gen + n) and a slot below `gen` is from an earlier call, so the
;; table is never cleared per block — only when the generation nears 2^30.
;;
;; Memory: [hash table, 32 KiB][input n][output, at most n + n / 255 + 16]; the caller grows
;; it. compress(in, n, out): compresses memory[in, in + n) to memory[out, ...) and returns
;; the number of bytes written. REQUIRES: in >= 32768, n < 2^30, in + n <= out.
(module
  (memory (export "memory") 1)
  (global $gen (mut i32) (i32.const 1))

  ;; The table slot's address for the 4 bytes at $p.
  (func $slot (param $p i32) (result i32)
    (i32.shl
      (i32.shr_u (i32.mul (i32.load (local.get $p)) (i32.const 0x9e3779b1)) (i32.const 19))
      (i32.const 2)))

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

  ;; A length field's extension bytes for $rest = length - 15: 255s, then the remainder.
  (func $extension (param $op i32) (param $rest i32) (result i32)
    (block $done
      (loop $more
        (br_if $done (i32.lt_u (local.get $rest) (i32.const 255)))
        (i32.store8 (local.get $op) (i32.const 255))
        (local.set $op (i32.add (local.get $op) (i32.const 1)))
        (local.set $rest (i32.sub (local.get $rest) (i32.const 255)))
        (br $more)))
    (i32.store8 (local.get $op) (local.get $rest))
    (i32.add (local.get $op) (i32.const 1)))

  ;; A sequence's token (literal length; the match length is or-ed in later), its extension
  ;; and the literals memory[$src, $src + $len), at $op; returns the position after them.
  (func $literals (param $src i32) (param $len i32) (param $op i32) (result i32)
    (if (i32.ge_u (local.get $len) (i32.const 15))
      (then
        (i32.store8 (local.get $op) (i32.const 0xf0))
        (local.set $op (call $extension (i32.add (local.get $op) (i32.const 1))
          (i32.sub (local.get $len) (i32.const 15)))))
      (else
        (i32.store8 (local.get $op) (i32.shl (local.get $len) (i32.const 4)))
        (local.set $op (i32.add (local.get $op) (i32.const 1)))))
    (memory.copy (local.get $op) (local.get $src) (local.get $len))
    (i32.add (local.get $op) (local.get $len)))

  (func (export "compress") (param $in i32) (param $n i32) (param $out i32) (result i32)
    (local $end i32) (local $op i32) (local $anchor i32) (local $ip i32) (local $match i32)
    (local $matchLimit i32) (local $lastStart i32) (local $floor i32) (local $base i32)
    (local $misses i32) (local $seq i32) (local $slot i32) (local $stored i32)
    (local $token i32) (local $offset i32) (local $len i32)
    (local.set $end (i32.add (local.get $in) (local.get $n)))
    (local.set $op (local.get $out))
    (local.set $anchor (local.get $in))
    (if (i32.ge_u (local.get $n) (i32.const 13))
      (then
        (if (i32.gt_u (i32.add (global.get $gen) (local.get $n)) (i32.const 0x40000000))
          (then
            (memory.fill (i32.const 0) (i32.const 0) (i32.const 32768))
            (global.set $gen (i32.const 1))))
        (local.set $floor (global.get $gen))
        (local.set $base (i32.sub (local.get $floor) (local.get $in)))
        (global.set $gen (i32.add (global.get $gen) (local.get $n)))
        (local.set $matchLimit (i32.sub (local.get $end) (i32.const 5)))
        (local.set $lastStart (i32.sub (local.get $end) (i32.const 12)))
        (i32.store (call $slot (local.get $in)) (i32.add (local.get $base) (local.get $in)))
        (local.set $ip (i32.add (local.get $in) (i32.const 1)))
        (local.set $misses (i32.const 64))
        (block $done
          (loop $search
            (br_if $done (i32.gt_u (local.get $ip) (local.get $lastStart)))
            (local.set $seq (i32.load (local.get $ip)))
            (local.set $slot (i32.shl (i32.shr_u (i32.mul (local.get $seq) (i32.const 0x9e3779b1))
              (i32.const 19)) (i32.const 2)))
            (local.set $stored (i32.load (local.get $slot)))
            (i32.store (local.get $slot) (i32.add (local.get $base) (local.get $ip)))
            (local.set $match (i32.sub (local.get $stored) (local.get $base)))
            ;; A slot below $floor is an earlier call's: $match is then no position to read.
            (block $found
              (block $miss
                (br_if $miss (i32.lt_u (local.get $stored) (local.get $floor)))
                (br_if $miss (i32.gt_u (i32.sub (local.get $ip) (local.get $match))
                  (i32.const 65535)))
                (br_if $found (i32.eq (i32.load (local.get $match)) (local.get $seq))))
              (local.set $ip (i32.add (local.get $ip)
                (i32.shr_u (local.get $misses) (i32.const 6))))
              (local.set $misses (i32.add (local.get $misses) (i32.const 1)))
              (br $search))
            (local.set $misses (i32.const 64))
            ;; Backwards over equal literals.
            (block $back_done
              (loop $back
                (br_if $back_done (i32.le_u (local.get $ip) (local.get $anchor)))
                (br_if $back_done (i32.le_u (local.get $match) (local.get $in)))
                (br_if $back_done (i32.ne
                  (i32.load8_u (i32.sub (local.get $ip) (i32.const 1)))
                  (i32.load8_u (i32.sub (local.get $match) (i32.const 1)))))
                (local.set $ip (i32.sub (local.get $ip) (i32.const 1)))
                (local.set $match (i32.sub (local.get $match) (i32.const 1)))
                (br $back)))
            (local.set $token (local.get $op))
            (local.set $op (call $literals (local.get $anchor)
              (i32.sub (local.get $ip) (local.get $anchor)) (local.get $op)))
            (local.set $offset (i32.sub (local.get $ip) (local.get $match)))
            (i32.store16 (local.get $op) (local.get $offset))
            (local.set $op (i32.add (local.get $op) (i32.const 2)))
            (local.set $len (call $matchLength (i32.add (local.get $match) (i32.const 4))
              (i32.add (local.get $ip) (i32.const 4)) (local.get $matchLimit)))
            (if (i32.ge_u (local.get $len) (i32.const 15))
              (then
                (i32.store8 (local.get $token)
                  (i32.or (i32.load8_u (local.get $token)) (i32.const 15)))
                (local.set $op (call $extension (local.get $op)
                  (i32.sub (local.get $len) (i32.const 15)))))
              (else
                (i32.store8 (local.get $token)
                  (i32.or (i32.load8_u (local.get $token)) (local.get $len)))))
            (local.set $ip (i32.add (local.get $ip) (i32.add (local.get $len) (i32.const 4))))
            (local.set $anchor (local.get $ip))
            (if (i32.le_u (local.get $ip) (local.get $lastStart))
              (then
                (i32.store (call $slot (i32.sub (local.get $ip) (i32.const 2)))
                  (i32.add (local.get $base) (i32.sub (local.get $ip) (i32.const 2))))))
            (br $search)))))
    (local.set $op (call $literals (local.get $anchor)
      (i32.sub (local.get $end) (local.get $anchor)) (local.get $op)))
    (i32.sub (local.get $op) (local.get $out))))
