#!/usr/bin/env python3
"""Generates src/checksum-slice-hash.ts: RocksDB's Hash64 (XXPH3 preview, seed 0) for keys of
0-128 bytes as one flat function. Every 64-bit operation of checksum-u64.ts is expanded in
place on local variables, and the secret words are folded in as literals: a call that V8
does not inline boxes each uint32 above 2^30 it passes or returns, which made the helper-based
version (checksum-xxh3.ts, still used above 128 bytes and as the reference in tests) 3-5x
slower on short keys. Run after changing this file:  python3 scripts/gen-slice-hash.py && npx biome check --write src/checksum-slice-hash.ts
"""
import os

SECRET = bytes.fromhex(
    "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f"
    "cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c"
    "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8"
    "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364"
    "eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e"
    "2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e")


def sw(o):
    return "0x%08x" % int.from_bytes(SECRET[o:o + 4], "little")


P32_1 = 0x9E3779B1
P64_1 = 0x9E3779B185EBCA87
P64_2 = 0xC2B2AE3D27D4EB4F
P64_3 = 0x165667B19E3779F9

n = [0]


def fresh(prefix):
    n[0] += 1
    return "%s%d" % (prefix, n[0])


def lo(c):
    return "0x%08x" % (c & 0xFFFFFFFF)


def hi(c):
    return "0x%08x" % (c >> 32)


def rd(p):
    return "(data[%s]! | (data[%s + 1]! << 8) | (data[%s + 2]! << 16) | (data[%s + 3]! << 24))" % (p, p, p, p)


def mul32(out, a, b, body):
    """out_lo, out_hi = full product of uint32 a, b (names or literals)."""
    ol, oh = out
    a0, a1, b0, b1, t, m1, m2, mid = (fresh(x) for x in ("a0_", "a1_", "b0_", "b1_", "t", "m1_", "m2_", "mid"))
    body += [
        "const %s = %s & 0xffff;" % (a0, a),
        "const %s = %s >>> 16;" % (a1, a),
        "const %s = %s & 0xffff;" % (b0, b),
        "const %s = %s >>> 16;" % (b1, b),
        "const %s = %s * %s;" % (t, a0, b0),
        "const %s = %s * %s;" % (m1, a1, b0),
        "const %s = %s * %s;" % (m2, a0, b1),
        "const %s = (%s >>> 16) + (%s & 0xffff) + (%s & 0xffff);" % (mid, t, m1, m2),
        "const %s = (%s * %s + (%s >>> 16) + (%s >>> 16) + (%s >>> 16)) >>> 0;" % (oh, a1, b1, m1, m2, mid),
        "const %s = ((%s << 16) | (%s & 0xffff)) >>> 0;" % (ol, mid, t),
    ]


def mul64(a, b, body):
    """a * b mod 2^64, b a constant (int) or a pair of names."""
    ol, oh, pl, ph = fresh("ml"), fresh("mh"), fresh("pl"), fresh("ph")
    bl, bh = (lo(b), hi(b)) if isinstance(b, int) else b
    mul32((pl, ph), a[0], bl, body)
    body.append("const %s = %s;" % (ol, pl))
    cross = []
    if bh != "0x00000000":
        cross.append("Math.imul(%s, %s)" % (a[0], bh))
    if a[1] != "0":
        cross.append("Math.imul(%s, %s)" % (a[1], bl))
    body.append("const %s = (%s) >>> 0;" % (oh, " + ".join([ph] + cross)))
    return (ol, oh)


def add64(a, b, body):
    s, ol, oh = fresh("s"), fresh("al"), fresh("ah")
    body += [
        "const %s = %s + %s;" % (s, a[0], b[0]),
        "const %s = %s >>> 0;" % (ol, s),
        "const %s = (%s + %s + (%s > 0xffffffff ? 1 : 0)) >>> 0;" % (oh, a[1], b[1], s),
    ]
    return (ol, oh)


def xorshr(a, k, body):
    ol, oh = fresh("xl"), fresh("xh")
    if k >= 32:
        body += ["const %s = (%s ^ (%s >>> %d)) >>> 0;" % (ol, a[0], a[1], k - 32), "const %s = %s;" % (oh, a[1])]
    else:
        body += [
            "const %s = (%s ^ ((%s >>> %d) | (%s << %d))) >>> 0;" % (ol, a[0], a[0], k, a[1], 32 - k),
            "const %s = (%s ^ (%s >>> %d)) >>> 0;" % (oh, a[1], a[1], k),
        ]
    return (ol, oh)


def fold(a, b, body):
    """mul128_fold64(a, b)."""
    p0, p1, p2, p3 = [(fresh("ql"), fresh("qh")) for _ in range(4)]
    mul32(p0, a[0], b[0], body)
    mul32(p1, a[1], b[0], body)
    mul32(p2, a[0], b[1], body)
    mul32(p3, a[1], b[1], body)
    s1, w1, s2, w2, w3, ol, oh = (fresh(x) for x in ("s1_", "w1_", "s2_", "w2_", "w3_", "fl", "fh"))
    body += [
        "const %s = %s + %s + %s;" % (s1, p0[1], p1[0], p2[0]),
        "const %s = %s >>> 0;" % (w1, s1),
        "const %s = %s + %s + %s + (%s - %s) / 4294967296;" % (s2, p1[1], p2[1], p3[0], s1, w1),
        "const %s = %s >>> 0;" % (w2, s2),
        "const %s = (%s + (%s - %s) / 4294967296) >>> 0;" % (w3, p3[1], s2, w2),
        "const %s = (%s ^ %s) >>> 0;" % (ol, p0[0], w2),
        "const %s = (%s ^ %s) >>> 0;" % (oh, w1, w3),
    ]
    return (ol, oh)


def avalanche(a, body):
    x = xorshr(a, 37, body)
    m = mul64(x, P64_3, body)
    r = xorshr(m, 32, body)
    return r


def emit_out(r, body):
    body += ["out[at] = %s;" % r[0], "out[at + 1] = %s;" % r[1], "return;"]


def mix16(p, s, body):
    """mul128_fold64(read64(p) ^ secret64(s), read64(p + 8) ^ secret64(s + 8))."""
    names = [fresh("k") for _ in range(4)]
    for i, nm in enumerate(names):
        body.append("const %s = (%s ^ %s) >>> 0;" % (nm, rd("%s + %d" % (p, 4 * i)) if i else rd(p), sw(s + 4 * i)))
    return fold((names[0], names[1]), (names[2], names[3]), body)


def block(lines, indent):
    return "\n".join(" " * indent + l for l in lines)


out = []
# 1-3 bytes
b13 = ["const c = (data[p]! | (data[p + (len >>> 1)]! << 8) | (data[p + len - 1]! << 16) | (len << 24)) >>> 0;"]
m = mul64(("((c ^ %s) >>> 0)" % sw(0), "0"), P64_1, b13)
emit_out(avalanche(m, b13), b13)
# 4-8 bytes
b48 = ["const kl = (%s ^ %s) >>> 0;" % (rd("p"), sw(0)), "const kh = (%s ^ %s) >>> 0;" % (rd("p + len - 4"), sw(4))]
x = xorshr(("kl", "kh"), 51, b48)
m = mul64(x, P32_1, b48)
a = add64(m, ("len", "0"), b48)
x = xorshr(a, 47, b48)
m = mul64(x, P64_2, b48)
emit_out(avalanche(m, b48), b48)
# 9-16 bytes
b916 = [
    "const ll = (%s ^ %s) >>> 0;" % (rd("p"), sw(0)),
    "const lh = (%s ^ %s) >>> 0;" % (rd("p + 4"), sw(4)),
    "const il = (%s ^ %s) >>> 0;" % (rd("e - 8"), sw(8)),
    "const ih = (%s ^ %s) >>> 0;" % (rd("e - 4"), sw(12)),
]
a = add64(("ll", "lh"), ("il", "ih"), b916)
a = add64(a, ("len", "0"), b916)
f = fold(("ll", "lh"), ("il", "ih"), b916)
a = add64(a, f, b916)
emit_out(avalanche(a, b916), b916)
# 17-128 bytes: acc = len * P64_1 + the mix16 pairs, outermost (last 16 and first 16) always.
b17 = []
acc = mul64(("len", "0"), P64_1, b17)
b17.append("let accL = %s;" % acc[0])
b17.append("let accH = %s;" % acc[1])


def addmix(p, s, lines):
    f = mix16(p, s, lines)
    a = add64(("accL", "accH"), f, lines)
    lines += ["accL = %s;" % a[0], "accH = %s;" % a[1]]


for cond, pairs in [("len > 96", [("p + 48", 96), ("e - 64", 112)]),
                    ("len > 64", [("p + 32", 64), ("e - 48", 80)]),
                    ("len > 32", [("p + 16", 32), ("e - 32", 48)])]:
    inner = []
    for pp, s in pairs:
        addmix(pp, s, inner)
    b17.append("if (%s) {" % cond)
    b17 += ["  " + l for l in inner]
    b17.append("}")
addmix("p", 0, b17)
addmix("e - 16", 16, b17)
emit_out(avalanche(("accL", "accH"), b17), b17)

src = '''// Generated by scripts/gen-slice-hash.py. Do not edit.
/**
 * RocksDB 7.8.3's `Hash64` / `GetSliceHash64` (the XXPH3 preview, seed 0; see
 * checksum-xxh3.ts for the algorithm and its references) for keys of 0-128 bytes, flattened
 * into one function with the secret words as literals, so that no uint32 above 2^30 crosses
 * a call (V8 boxes those) — the full filter hashes every key it adds or probes with this.
 * Inputs longer than 128 bytes go to the general implementation (`long`).
 * Tests check it against checksum-xxh3.ts and librocksdb's vectors at every length.
 */

/** Hash64 of `data[p, e)` into out[at] (low 32 bits), out[at + 1] (high); `long` above 128 bytes. */
export function sliceHash64Short(
  data: Uint8Array,
  p: number,
  e: number,
  out: Uint32Array,
  at: number,
  long: (data: Uint8Array, p: number, e: number, out: Uint32Array, at: number) => void,
): void {
  const len = e - p;
  if (len > 16) {
    if (len > 128) {
      long(data, p, e, out, at);
      return;
    }
%s
  }
  if (len > 8) {
%s
  }
  if (len >= 4) {
%s
  }
  if (len > 0) {
%s
  }
  // RocksDB's change to the preview: the empty input hashes to mul128_fold64(secret64(0), PRIME64_2).
  out[at] = 0x0fe1dd04;
  out[at + 1] = 0x5342c301;
}
''' % (block(b17, 4), block(b916, 4), block(b48, 4), block(b13, 4))
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "checksum-slice-hash.ts")
open(here, "w").write(src)
print("wrote", here, src.count("\n"), "lines")
