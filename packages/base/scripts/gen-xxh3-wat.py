#!/usr/bin/env python3
"""Prints the XXH3 long-input accumulation functions of src/checksum-wasm.wat (the section
between ";; BEGIN xxh3acc" and ";; END xxh3acc"), unrolled over the eight 64-bit lanes held
in locals. Run after changing this file, then paste the output over that section:
    python3 scripts/gen-xxh3-wat.py
"""

SECRET = 131072  # the 192-byte default secret, copied in by checksum-wasm.ts
ACC = 131072 + 256  # the eight accumulators, read back by checksum-xxh3.ts
INIT = [0xC2B2AE3D, 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
        0x85EBCA77C2B2AE63, 0x85EBCA77, 0x27D4EB2F165667C5, 0x9E3779B1]


def i64(v):
    return "(i64.const 0x%x)" % v


def acc512(inp, sec, final, ind):
    """One 64-byte stripe: lane i gets data[i] (lane i ^ 1 in the final XXH3) and lo32*hi32
    of data[i] ^ secret[i]."""
    out = []
    for i in range(8):
        j = i ^ 1 if final else i
        out.append("(local.set $d (i64.load offset=%d %s))" % (8 * i, inp))
        out.append("(local.set $k (i64.xor (local.get $d) (i64.load offset=%d %s)))" % (8 * i, sec))
        out.append("(local.set $a%d (i64.add (local.get $a%d) (local.get $d)))" % (j, j))
        out.append("(local.set $a%d (i64.add (local.get $a%d) (i64.mul (i64.and (local.get $k) (i64.const 0xffffffff)) (i64.shr_u (local.get $k) (i64.const 32)))))" % (i, i))
    return [ind + l for l in out]


def scramble(ind):
    out = []
    for i in range(8):
        out.append("(local.set $a%d (i64.xor (local.get $a%d) (i64.shr_u (local.get $a%d) (i64.const 47))))" % (i, i, i))
        out.append("(local.set $a%d (i64.xor (local.get $a%d) (i64.load offset=%d (i32.const %d))))" % (i, i, SECRET + 128 + 8 * i, 0))
        out.append("(local.set $a%d (i64.mul (local.get $a%d) (i64.const 0x9e3779b1)))" % (i, i))
    return [ind + l for l in out]


def func(name, final):
    L = []
    L.append(';; %s(p, len): the accumulators of %s over memory[p, p + len), len > 240,' % (name, "XXH3-64 (final)" if final else "XXPH3 (RocksDB's Hash64, the preview)"))
    L.append(';; stored at %d as eight little-endian u64; the caller merges them.' % ACC)
    L.append('(func (export "%s") (param $p i32) (param $len i32)' % name)
    L.append('  (local $d i64) (local $k i64) (local $body i32) (local $blocks i32) (local $n i32)')
    L.append('  (local $b i32) (local $q i32) (local $s i32) (local $stripes i32)')
    L.append('  ' + ' '.join('(local $a%d i64)' % i for i in range(8)))
    for i, v in enumerate(INIT):
        L.append('  (local.set $a%d %s)' % (i, i64(v)))
    if final:
        L.append('  (local.set $body (i32.sub (local.get $len) (i32.const 1)))  ;; the last stripe is always separate')
    else:
        L.append('  (local.set $body (local.get $len))')
    L.append('  (local.set $blocks (i32.shr_u (local.get $body) (i32.const 10)))  ;; 1024-byte blocks')
    L.append('  (local.set $b (local.get $p))')
    L.append('  (block $blocksDone')
    L.append('    (loop $nextBlock')
    L.append('      (br_if $blocksDone (i32.ge_u (local.get $n) (local.get $blocks)))')
    L.append('      (local.set $q (local.get $b))')
    L.append('      (local.set $s (i32.const %d))' % SECRET)
    L.append('      (block $stripesDone')
    L.append('        (loop $nextStripe')
    L.append('          (br_if $stripesDone (i32.ge_u (local.get $s) (i32.const %d)))' % (SECRET + 128))
    L += acc512('(local.get $q)', '(local.get $s)', final, '          ')
    L.append('          (local.set $q (i32.add (local.get $q) (i32.const 64)))')
    L.append('          (local.set $s (i32.add (local.get $s) (i32.const 8)))')
    L.append('          (br $nextStripe)))')
    L += scramble('      ')
    L.append('      (local.set $b (i32.add (local.get $b) (i32.const 1024)))')
    L.append('      (local.set $n (i32.add (local.get $n) (i32.const 1)))')
    L.append('      (br $nextBlock)))')
    L.append('  ;; the last partial block: whole stripes, then the last 64 bytes')
    L.append('  (local.set $stripes (i32.shr_u (i32.sub (local.get $body) (i32.shl (local.get $blocks) (i32.const 10))) (i32.const 6)))')
    L.append('  (local.set $q (local.get $b))')
    L.append('  (local.set $s (i32.const %d))' % SECRET)
    L.append('  (local.set $n (i32.const 0))')
    L.append('  (block $tailDone')
    L.append('    (loop $nextTail')
    L.append('      (br_if $tailDone (i32.ge_u (local.get $n) (local.get $stripes)))')
    L += acc512('(local.get $q)', '(local.get $s)', final, '      ')
    L.append('      (local.set $q (i32.add (local.get $q) (i32.const 64)))')
    L.append('      (local.set $s (i32.add (local.get $s) (i32.const 8)))')
    L.append('      (local.set $n (i32.add (local.get $n) (i32.const 1)))')
    L.append('      (br $nextTail)))')
    last = acc512('(local.get $q)', '(i32.const %d)' % (SECRET + 192 - 64 - 7), final, '    ')
    L.append('  (local.set $q (i32.sub (i32.add (local.get $p) (local.get $len)) (i32.const 64)))')
    if final:
        L += ['  ' + l.strip() for l in last]
    else:
        L.append('  (if (i32.and (local.get $len) (i32.const 63))')
        L.append('    (then')
        L += ['      ' + l.strip() for l in last]
        L.append('    ))')
    for i in range(8):
        L.append('  (i64.store offset=%d (i32.const 0) (local.get $a%d))' % (ACC + 8 * i, i))
    L.append(')')
    return L


print("  ;; BEGIN xxh3acc (generated by scripts/gen-xxh3-wat.py)")
for name, final in [("xxh3acc", True), ("xxph3acc", False)]:
    for l in func(name, final):
        print("  " + l)
print("  ;; END xxh3acc")
