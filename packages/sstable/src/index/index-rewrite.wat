;; The per-entry loops of loading a large index block, in WebAssembly: the whole-entries
;; rewrite of index-block.ts (`rewriteWholeEntries`) and the record pass of index-search.ts
;; (`IndexSearch.build`). They run once per table open, over ~25k entries for a 58 MB table,
;; mostly as cold JavaScript: on the first table a process opened, rewrite + search aid took
;; ~58 ms as JavaScript and take 15-23 ms with this module (its compile and the restart-array
;; checks around it included); later opens ~8-13 ms -> ~5. Each function mirrors its JavaScript
;; twin exactly: where that one gives up (returns undefined) or finds damage, this one
;; returns a code and the caller runs the JavaScript, which reports it.
;; Build: scripts/build-wasm.mjs (wabt's wat2wasm) writes src/index-rewrite-wasm.ts.
;;
;; rewrite(limit, numRestarts, trailer, delta, out, rs): the index block's entries are
;;   memory[0, limit); writes the classic block (entries with value lengths and, for user
;;   keys, `trailer` zero bytes; restart array; count) to memory[out, ...) and returns its
;;   length, 0 for a block with no entry, -1 where rewriteWholeEntries returns undefined.
;;   memory[rs, rs + 4 * numRestarts) is scratch for the restart offsets.
;; records(limit, numRestarts, ks, ul, rec): the classic block is memory[0, ...), its
;;   restart array at `limit`. Per entry i: ks[i] = where its key starts, ul[i] = its user
;;   key length, rec[4i+2], rec[4i+3] = its block offset mod 2^32 and / 2^32. Returns 1, 0
;;   when a restart run holds more than one entry (no search aid), -1 for a malformed entry.
;; words(n, prefix, ks, ul, rec): rec[4i], rec[4i+1] = user-key bytes [prefix, prefix + 4)
;;   and [prefix + 4, prefix + 8) of entry i, big-endian, zero past its end (keyWordAt).
;; Varints as @shale/base's varint32Before / varint64Before: bounded by a limit, varint32 at
;; most 5 bytes and 32 bits, varint64 at most 10 bytes and 2^53 - 1.
(module
  (memory (export "memory") 1)
  (global $vend (mut i32) (i32.const 0))

  ;; The varint32 at memory[pos, limit), or -1; the position after it in $vend.
  (func $v32 (param $pos i32) (param $limit i32) (result i64)
    (local $b i32) (local $result i32) (local $shift i32)
    (if (i32.ge_u (local.get $pos) (local.get $limit)) (then (return (i64.const -1))))
    (local.set $b (i32.load8_u (local.get $pos)))
    (if (i32.lt_u (local.get $b) (i32.const 0x80))
      (then
        (global.set $vend (i32.add (local.get $pos) (i32.const 1)))
        (return (i64.extend_i32_u (local.get $b)))))
    (local.set $result (i32.and (local.get $b) (i32.const 0x7f)))
    (local.set $shift (i32.const 7))
    (loop $more
      (local.set $pos (i32.add (local.get $pos) (i32.const 1)))
      (if (i32.ge_u (local.get $pos) (local.get $limit)) (then (return (i64.const -1))))
      (local.set $b (i32.load8_u (local.get $pos)))
      (if (i32.and (i32.eq (local.get $shift) (i32.const 28)) (i32.gt_u (local.get $b) (i32.const 0x0f)))
        (then (return (i64.const -1))))
      (local.set $result
        (i32.or (local.get $result)
          (i32.shl (i32.and (local.get $b) (i32.const 0x7f)) (local.get $shift))))
      (if (i32.lt_u (local.get $b) (i32.const 0x80))
        (then
          (global.set $vend (i32.add (local.get $pos) (i32.const 1)))
          (return (i64.extend_i32_u (local.get $result)))))
      (local.set $shift (i32.add (local.get $shift) (i32.const 7)))
      (br_if $more (i32.le_u (local.get $shift) (i32.const 28))))
    (i64.const -1))

  ;; The varint64 at memory[pos, limit), or -1; the position after it in $vend.
  (func $v64 (param $pos i32) (param $limit i32) (result i64)
    (local $b i32) (local $i i32) (local $result i64) (local $big i32)
    (block $done
      (loop $more
        (if (i32.ge_u (local.get $pos) (local.get $limit)) (then (return (i64.const -1))))
        (local.set $b (i32.load8_u (local.get $pos)))
        (local.set $pos (i32.add (local.get $pos) (i32.const 1)))
        (if (i32.lt_u (local.get $i) (i32.const 9))
          (then
            (local.set $result
              (i64.or (local.get $result)
                (i64.shl (i64.extend_i32_u (i32.and (local.get $b) (i32.const 0x7f)))
                  (i64.extend_i32_u (i32.mul (local.get $i) (i32.const 7)))))))
          ;; The tenth byte's bits are at 2^63 and up: any of them is over 2^53 - 1.
          (else
            (if (i32.and (local.get $b) (i32.const 0x7f)) (then (local.set $big (i32.const 1))))))
        (br_if $done (i32.lt_u (local.get $b) (i32.const 0x80)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $more (i32.lt_u (local.get $i) (i32.const 10)))
        (return (i64.const -1))))
    (if (i32.or (local.get $big) (i64.gt_u (local.get $result) (i64.const 0x1fffffffffffff)))
      (then (return (i64.const -1))))
    (global.set $vend (local.get $pos))
    (local.get $result))

  ;; Writes `v` as a varint32 at memory[w, ...); returns the position after it.
  (func $put32 (param $w i32) (param $v i32) (result i32)
    (loop $more
      (if (i32.ge_u (local.get $v) (i32.const 0x80))
        (then
          (i32.store8 (local.get $w) (i32.or (local.get $v) (i32.const 0x80)))
          (local.set $w (i32.add (local.get $w) (i32.const 1)))
          (local.set $v (i32.shr_u (local.get $v) (i32.const 7)))
          (br $more))))
    (i32.store8 (local.get $w) (local.get $v))
    (i32.add (local.get $w) (i32.const 1)))

  (func (export "rewrite") (param $limit i32) (param $numRestarts i32) (param $trailer i32)
    (param $delta i32) (param $out i32) (param $rs i32) (result i32)
    (local $p i32) (local $q i32) (local $w i32) (local $count i32) (local $unshared i32)
    (local $x i64) (local $valueStart i32) (local $valueLength i32) (local $keyLength i32)
    (local $keyEnd i32)
    (local.set $w (local.get $out))
    (block $fail
      (loop $entry
        (if (i32.lt_u (local.get $p) (local.get $limit))
          (then
            ;; One entry per restart point, each storing its key whole (shared 0).
            (br_if $fail (i32.ge_u (local.get $count) (local.get $numRestarts)))
            (br_if $fail (i32.load8_u (local.get $p)))
            (local.set $q (i32.add (local.get $p) (i32.const 1)))
            (if (i32.and (i32.lt_u (local.get $q) (local.get $limit))
                  (i32.lt_u (i32.load8_u (local.get $q)) (i32.const 0x80)))
              (then
                (local.set $unshared (i32.load8_u (local.get $q)))
                (local.set $q (i32.add (local.get $q) (i32.const 1))))
              (else
                (local.set $x (call $v32 (local.get $q) (local.get $limit)))
                (br_if $fail (i64.lt_s (local.get $x) (i64.const 0)))
                (local.set $q (global.get $vend))
                ;; A key longer than the block ends past it (and would wrap the adds below).
                (br_if $fail (i64.gt_u (local.get $x) (i64.extend_i32_u (local.get $limit))))
                (local.set $unshared (i32.wrap_i64 (local.get $x)))))
            (if (local.get $delta)
              (then
                ;; The handle's two varints delimit themselves: find where they end.
                (local.set $valueStart (i32.add (local.get $q) (local.get $unshared)))
                (br_if $fail (i64.lt_s (call $v64 (local.get $valueStart) (local.get $limit))
                  (i64.const 0)))
                (br_if $fail (i64.lt_s (call $v64 (global.get $vend) (local.get $limit))
                  (i64.const 0)))
                (local.set $valueLength (i32.sub (global.get $vend) (local.get $valueStart))))
              (else
                (local.set $x (call $v32 (local.get $q) (local.get $limit)))
                (br_if $fail (i64.lt_s (local.get $x) (i64.const 0)))
                (br_if $fail (i64.gt_u (local.get $x) (i64.const 20)))
                (local.set $valueLength (i32.wrap_i64 (local.get $x)))
                (local.set $q (global.get $vend))
                (br_if $fail (i32.gt_u
                  (i32.add (i32.add (local.get $q) (local.get $unshared)) (local.get $valueLength))
                  (local.get $limit)))))
            (local.set $keyLength (i32.add (local.get $unshared) (local.get $trailer)))
            (br_if $fail (i32.lt_u (local.get $keyLength) (i32.const 8)))
            (i32.store
              (i32.add (local.get $rs) (i32.shl (local.get $count) (i32.const 2)))
              (i32.sub (local.get $w) (local.get $out)))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))
            (i32.store8 (local.get $w) (i32.const 0))
            (local.set $w (call $put32 (i32.add (local.get $w) (i32.const 1)) (local.get $keyLength)))
            (local.set $w (call $put32 (local.get $w) (local.get $valueLength)))
            (memory.copy (local.get $w) (local.get $q) (local.get $unshared))
            (local.set $w (i32.add (local.get $w) (local.get $unshared)))
            (memory.fill (local.get $w) (i32.const 0) (local.get $trailer))
            (local.set $w (i32.add (local.get $w) (local.get $trailer)))
            (local.set $keyEnd (i32.add (local.get $q) (local.get $unshared)))
            (memory.copy (local.get $w) (local.get $keyEnd) (local.get $valueLength))
            (local.set $w (i32.add (local.get $w) (local.get $valueLength)))
            (local.set $p (i32.add (local.get $keyEnd) (local.get $valueLength)))
            (br $entry))))
      (if (i32.eqz (local.get $count)) (then (return (i32.const 0))))
      ;; The restart array (fixed32, little-endian like this memory), then the count.
      (memory.copy (local.get $w) (local.get $rs) (i32.shl (local.get $count) (i32.const 2)))
      (local.set $w (i32.add (local.get $w) (i32.shl (local.get $count) (i32.const 2))))
      (i32.store (local.get $w) (local.get $count))
      (return (i32.sub (i32.add (local.get $w) (i32.const 4)) (local.get $out))))
    (i32.const -1))

  (func (export "records") (param $limit i32) (param $n i32) (param $ks i32) (param $ul i32)
    (param $rec i32) (result i32)
    (local $i i32) (local $p i32) (local $x i64) (local $unshared i32) (local $vlen i32)
    (local $q i32) (local $end i32) (local $next i32) (local $r i32)
    (block $malformed
      (loop $entry
        (if (i32.lt_u (local.get $i) (local.get $n))
          (then
            (local.set $p (i32.load (i32.add (local.get $limit) (i32.shl (local.get $i) (i32.const 2)))))
            ;; The restart entry's header: shared 0, unshared, value length.
            (br_if $malformed (i64.ne (call $v32 (local.get $p) (local.get $limit)) (i64.const 0)))
            (local.set $x (call $v32 (global.get $vend) (local.get $limit)))
            (br_if $malformed (i64.lt_s (local.get $x) (i64.const 0)))
            (br_if $malformed (i64.gt_u (local.get $x) (i64.extend_i32_u (local.get $limit))))
            (local.set $unshared (i32.wrap_i64 (local.get $x)))
            (local.set $x (call $v32 (global.get $vend) (local.get $limit)))
            (br_if $malformed (i64.lt_s (local.get $x) (i64.const 0)))
            (br_if $malformed (i64.gt_u (local.get $x) (i64.extend_i32_u (local.get $limit))))
            (local.set $vlen (i32.wrap_i64 (local.get $x)))
            (local.set $q (global.get $vend))
            (br_if $malformed (i32.lt_u (local.get $unshared) (i32.const 8)))
            (local.set $end (i32.add (i32.add (local.get $q) (local.get $unshared)) (local.get $vlen)))
            (br_if $malformed (i32.gt_u (local.get $end) (local.get $limit)))
            (local.set $x (call $v64 (i32.add (local.get $q) (local.get $unshared)) (local.get $end)))
            (br_if $malformed (i64.lt_s (local.get $x) (i64.const 0)))
            (local.set $next
              (if (result i32) (i32.lt_u (i32.add (local.get $i) (i32.const 1)) (local.get $n))
                (then (i32.load (i32.add (local.get $limit)
                  (i32.shl (i32.add (local.get $i) (i32.const 1)) (i32.const 2)))))
                (else (local.get $limit))))
            (if (i32.ne (local.get $end) (local.get $next)) (then (return (i32.const 0))))
            (i32.store (i32.add (local.get $ks) (i32.shl (local.get $i) (i32.const 2))) (local.get $q))
            (i32.store (i32.add (local.get $ul) (i32.shl (local.get $i) (i32.const 2)))
              (i32.sub (local.get $unshared) (i32.const 8)))
            (local.set $r (i32.add (local.get $rec) (i32.shl (local.get $i) (i32.const 4))))
            (i32.store offset=8 (local.get $r) (i32.wrap_i64 (local.get $x)))
            (i32.store offset=12 (local.get $r) (i32.wrap_i64 (i64.shr_u (local.get $x) (i64.const 32))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $entry))))
      (return (i32.const 1)))
    (i32.const -1))

  ;; keyWordAt: bytes [start, start + 4) big-endian, zero at and past `end`.
  (func $word (param $start i32) (param $end i32) (result i32)
    (local $w i32) (local $i i32)
    (if (i32.le_s (i32.add (local.get $start) (i32.const 4)) (local.get $end))
      (then
        (return
          (i32.or
            (i32.or
              (i32.shl (i32.load8_u (local.get $start)) (i32.const 24))
              (i32.shl (i32.load8_u offset=1 (local.get $start)) (i32.const 16)))
            (i32.or
              (i32.shl (i32.load8_u offset=2 (local.get $start)) (i32.const 8))
              (i32.load8_u offset=3 (local.get $start)))))))
    (local.set $i (local.get $start))
    (loop $byte
      (local.set $w
        (i32.or (i32.shl (local.get $w) (i32.const 8))
          (if (result i32) (i32.lt_s (local.get $i) (local.get $end))
            (then (i32.load8_u (local.get $i)))
            (else (i32.const 0)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $byte (i32.lt_s (local.get $i) (i32.add (local.get $start) (i32.const 4)))))
    (local.get $w))

  (func (export "words") (param $n i32) (param $prefix i32) (param $ks i32) (param $ul i32)
    (param $rec i32)
    (local $i i32) (local $start i32) (local $end i32) (local $r i32)
    (loop $entry
      (if (i32.lt_u (local.get $i) (local.get $n))
        (then
          (local.set $start (i32.load (i32.add (local.get $ks) (i32.shl (local.get $i) (i32.const 2)))))
          (local.set $end (i32.add (local.get $start)
            (i32.load (i32.add (local.get $ul) (i32.shl (local.get $i) (i32.const 2))))))
          (local.set $start (i32.add (local.get $start) (local.get $prefix)))
          (local.set $r (i32.add (local.get $rec) (i32.shl (local.get $i) (i32.const 4))))
          (i32.store (local.get $r) (call $word (local.get $start) (local.get $end)))
          (i32.store offset=4 (local.get $r)
            (call $word (i32.add (local.get $start) (i32.const 4)) (local.get $end)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $entry)))))
)
