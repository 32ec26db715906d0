;; Snappy decompression in WebAssembly: the element loop of snappy-decode.ts (format drawn
;; there), for blocks copied into this module's memory. Build: scripts/build-wasm.mjs
;; (wabt's wat2wasm) writes src/snappy-decode-wasm.ts; CI only loads the bytes.
;;
;; decode(p, n, start, end): the stream's elements are memory[p, n) (after its length
;; header), the output goes to memory[start, end). Returns 1 when the elements produce
;; exactly end - start bytes, 0 for a malformed stream (a literal past the input, a copy
;; with offset 0 or reaching before `start`, output past `end`, a truncated element).
;; REQUIRES: 4 readable bytes past n (the caller lays the output after the input and keeps
;; 16 bytes of slack at the end of memory: short literals and copies move 8-byte words and
;; may write up to 7 bytes past `end`).
(module
  (memory (export "memory") 1)
  (func (export "decode") (param $p i32) (param $n i32) (param $start i32) (param $end i32)
    (result i32)
    (local $o i32) (local $tag i32) (local $len i32) (local $off i32) (local $extra i32)
    (local $from i32) (local $stop i32) (local $i i32)
    (local.set $o (local.get $start))
    (block $fail
      (loop $next
        (if (i32.ge_u (local.get $p) (local.get $n))
          (then (return (i32.eq (local.get $o) (local.get $end)))))
        (local.set $tag (i32.load8_u (local.get $p)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (if (i32.eqz (i32.and (local.get $tag) (i32.const 3)))
          (then
            ;; Literal: length-1 in the tag's high 6 bits, or 60..63: in 1..4 more bytes.
            (local.set $len (i32.shr_u (local.get $tag) (i32.const 2)))
            (if (i32.ge_u (local.get $len) (i32.const 60))
              (then
                (local.set $extra (i32.sub (local.get $len) (i32.const 59)))
                (br_if $fail (i32.gt_u (i32.add (local.get $p) (local.get $extra)) (local.get $n)))
                ;; The low `extra` bytes of a little-endian word (extra = 4: all of it).
                (local.set $len
                  (i32.and (i32.load (local.get $p))
                    (i32.sub
                      (i32.shl (i32.const 1) (i32.shl (local.get $extra) (i32.const 3)))
                      (i32.const 1))))
                (if (i32.eq (local.get $extra) (i32.const 4))
                  (then (local.set $len (i32.load (local.get $p)))))
                (local.set $p (i32.add (local.get $p) (local.get $extra)))
                ;; Lengths of 2^31 and more cannot fit: caught as unsigned overruns below.
                (br_if $fail (i32.ge_u (local.get $len) (i32.const 0x7ffffff0)))))
            (local.set $len (i32.add (local.get $len) (i32.const 1)))
            (br_if $fail (i32.gt_u (local.get $len) (i32.sub (local.get $n) (local.get $p))))
            (br_if $fail (i32.gt_u (local.get $len) (i32.sub (local.get $end) (local.get $o))))
            ;; Up to 64 bytes: 8-byte words (may write up to 7 bytes past the literal, into
            ;; output the next elements write, or the slack; may read past it, harmlessly),
            ;; cheaper than memory.copy's call for the short literals that fill data blocks.
            (if (i32.le_u (local.get $len) (i32.const 64))
              (then
                (local.set $i (i32.const 0))
                (loop $words
                  (i64.store (i32.add (local.get $o) (local.get $i))
                    (i64.load (i32.add (local.get $p) (local.get $i))))
                  (local.set $i (i32.add (local.get $i) (i32.const 8)))
                  (br_if $words (i32.lt_u (local.get $i) (local.get $len)))))
              (else (memory.copy (local.get $o) (local.get $p) (local.get $len))))
            (local.set $p (i32.add (local.get $p) (local.get $len)))
            (local.set $o (i32.add (local.get $o) (local.get $len)))
            (br $next)))
        ;; Copies.
        (if (i32.eq (i32.and (local.get $tag) (i32.const 3)) (i32.const 1))
          (then
            ;; Length-4 in bits 2..4, offset: bits 5..7 then one byte.
            (br_if $fail (i32.ge_u (local.get $p) (local.get $n)))
            (local.set $len
              (i32.add (i32.and (i32.shr_u (local.get $tag) (i32.const 2)) (i32.const 7))
                (i32.const 4)))
            (local.set $off
              (i32.or (i32.shl (i32.shr_u (local.get $tag) (i32.const 5)) (i32.const 8))
                (i32.load8_u (local.get $p))))
            (local.set $p (i32.add (local.get $p) (i32.const 1))))
          (else
            (local.set $len (i32.add (i32.shr_u (local.get $tag) (i32.const 2)) (i32.const 1)))
            (if (i32.eq (i32.and (local.get $tag) (i32.const 3)) (i32.const 2))
              (then
                ;; Offset: 2 bytes little-endian.
                (br_if $fail (i32.gt_u (i32.add (local.get $p) (i32.const 2)) (local.get $n)))
                (local.set $off (i32.load16_u (local.get $p)))
                (local.set $p (i32.add (local.get $p) (i32.const 2))))
              (else
                ;; Offset: 4 bytes little-endian.
                (br_if $fail (i32.gt_u (i32.add (local.get $p) (i32.const 4)) (local.get $n)))
                (local.set $off (i32.load (local.get $p)))
                (local.set $p (i32.add (local.get $p) (i32.const 4)))))))
        (br_if $fail (i32.eqz (local.get $off)))
        (br_if $fail (i32.gt_u (local.get $off) (i32.sub (local.get $o) (local.get $start))))
        (br_if $fail (i32.gt_u (local.get $len) (i32.sub (local.get $end) (local.get $o))))
        (local.set $from (i32.sub (local.get $o) (local.get $off)))
        (if (i32.and (i32.ge_u (local.get $off) (i32.const 8))
              (i32.le_u (local.get $len) (i32.const 64)))
          (then
            ;; 8-byte words: with offset >= 8 each word reads only bytes already written
            ;; (overlap included); up to 7 bytes past the copy are written, as for literals.
            (local.set $i (i32.const 0))
            (loop $words
              (i64.store (i32.add (local.get $o) (local.get $i))
                (i64.load (i32.add (local.get $from) (local.get $i))))
              (local.set $i (i32.add (local.get $i) (i32.const 8)))
              (br_if $words (i32.lt_u (local.get $i) (local.get $len))))
            (local.set $o (i32.add (local.get $o) (local.get $len)))
            (br $next)))
        (if (i32.ge_u (local.get $off) (local.get $len))
          (then (memory.copy (local.get $o) (local.get $from) (local.get $len)))
          (else
            ;; Overlapping itself (a run): byte by byte, in order.
            (local.set $stop (i32.add (local.get $o) (local.get $len)))
            (loop $run
              (i32.store8 (local.get $o) (i32.load8_u (local.get $from)))
              (local.set $o (i32.add (local.get $o) (i32.const 1)))
              (local.set $from (i32.add (local.get $from) (i32.const 1)))
              (br_if $run (i32.lt_u (local.get $o) (local.get $stop))))
            (local.set $o (i32.sub (local.get $o) (local.get $len)))))
        (local.set $o (i32.add (local.get $o) (local.get $len)))
        (br $next)))
    (i32.const 0)))
