#!/usr/bin/env python3
"""Generates src/checksum-xxh3-short.ts: XXH3-64 and RocksDB's Hash64 (XXPH3 preview), seed 0,
for inputs of 0-240 bytes, each as one flat function. Every 64-bit operation of
checksum-u64.ts is expanded in place on local variables, and the secret words are folded in
as literals: a call that V8 does not inline boxes each uint32 above 2^30 it passes or
returns, which made the helper-based version (checksum-xxh3.ts, still used above 240 bytes
and as the reference in tests) 2-5x slower on short inputs. Run after changing this file:
  python3 scripts/gen-xxh3-short.py && npx biome check --write src/checksum-xxh3-short.ts
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


def avalanche(a, body, final):
    x = xorshr(a, 37, body)
    m = mul64(x, 0x165667919E3779F9 if final else P64_3, body)
    return xorshr(m, 32, body)


def xxh64_avalanche(a, body):
    x = xorshr(a, 33, body)
    m = mul64(x, P64_2, body)
    x = xorshr(m, 29, body)
    m = mul64(x, P64_3, body)
    return xorshr(m, 32, body)


def rotl(a, k, body):
    l, h = a
    if k > 32:
        l, h, k = h, l, k - 32
    ol, oh = fresh("rl"), fresh("rh")
    body += [
        "const %s = ((%s << %d) | (%s >>> %d)) >>> 0;" % (ol, l, k, h, 32 - k),
        "const %s = ((%s << %d) | (%s >>> %d)) >>> 0;" % (oh, h, k, l, 32 - k),
    ]
    return (ol, oh)


def xor(a, b, body):
    ol, oh = fresh("ol"), fresh("oh")
    body += ["const %s = (%s ^ %s) >>> 0;" % (ol, a[0], b[0]), "const %s = (%s ^ %s) >>> 0;" % (oh, a[1], b[1])]
    return (ol, oh)


def emit_out(r, body):
    body += ["out[at] = %s;" % r[0], "out[at + 1] = %s;" % r[1], "return;"]


def mix16(p, s, body):
    """mul128_fold64(read64(p) ^ secret64(s), read64(p + 8) ^ secret64(s + 8)); `s` an int
    (literal secret words) or an expression (SECRET_WORDS lookups)."""
    names = [fresh("k") for _ in range(4)]
    for i, nm in enumerate(names):
        sec = sw(s + 4 * i) if isinstance(s, int) else "SECRET_WORDS[%s + %d]!" % (s, 4 * i)
        body.append("const %s = (%s ^ %s) >>> 0;" % (nm, rd("%s + %d" % (p, 4 * i)) if i else rd(p), sec))
    return fold((names[0], names[1]), (names[2], names[3]), body)


def block(lines, indent):
    return "\n".join(" " * indent + l for l in lines)


def addmix(p, s, lines):
    f = mix16(p, s, lines)
    a = add64(("accL", "accH"), f, lines)
    lines += ["accL = %s;" % a[0], "accH = %s;" % a[1]]


def short_paths(final):
    if final:
        b13 = ["const c = ((data[p]! << 16) | (data[p + (len >>> 1)]! << 24) | data[e - 1]! | (len << 8)) >>> 0;"]
        emit_out(xxh64_avalanche(("((c ^ %s ^ %s) >>> 0)" % (sw(0), sw(4)), "0"), b13), b13)
        b48 = [
            "const kl = (%s ^ %s ^ %s) >>> 0;" % (rd("e - 4"), sw(8), sw(16)),
            "const kh = (%s ^ %s ^ %s) >>> 0;" % (rd("p"), sw(12), sw(20)),
        ]
        r49 = rotl(("kl", "kh"), 49, b48)
        r24 = rotl(("kl", "kh"), 24, b48)
        x = xor(xor(("kl", "kh"), r49, b48), r24, b48)
        m = mul64(x, 0x9FB21C651E98DF25, b48)
        sh = ("(%s >>> 3)" % m[1], "0")
        t = add64(sh, ("len", "0"), b48)
        x = xor(m, t, b48)
        m = mul64(x, 0x9FB21C651E98DF25, b48)
        emit_out(xorshr(m, 28, b48), b48)
        b916 = [
            "const ll = (%s ^ %s ^ %s) >>> 0;" % (rd("p"), sw(24), sw(32)),
            "const lh = (%s ^ %s ^ %s) >>> 0;" % (rd("p + 4"), sw(28), sw(36)),
            "const il = (%s ^ %s ^ %s) >>> 0;" % (rd("e - 8"), sw(40), sw(48)),
            "const ih = (%s ^ %s ^ %s) >>> 0;" % (rd("e - 4"), sw(44), sw(52)),
            "const swl = (((lh & 0xff) << 24) | ((lh & 0xff00) << 8) | ((lh >>> 8) & 0xff00) | (lh >>> 24)) >>> 0;",
            "const swh = (((ll & 0xff) << 24) | ((ll & 0xff00) << 8) | ((ll >>> 8) & 0xff00) | (ll >>> 24)) >>> 0;",
        ]
        a = add64(("len", "0"), ("swl", "swh"), b916)
        a = add64(a, ("il", "ih"), b916)
        f = fold(("ll", "lh"), ("il", "ih"), b916)
        a = add64(a, f, b916)
        emit_out(avalanche(a, b916, True), b916)
        empty = (0x38d394c2, 0x2d068005)
    else:
        b13 = ["const c = (data[p]! | (data[p + (len >>> 1)]! << 8) | (data[e - 1]! << 16) | (len << 24)) >>> 0;"]
        m = mul64(("((c ^ %s) >>> 0)" % sw(0), "0"), P64_1, b13)
        emit_out(avalanche(m, b13, False), b13)
        b48 = ["const kl = (%s ^ %s) >>> 0;" % (rd("p"), sw(0)), "const kh = (%s ^ %s) >>> 0;" % (rd("e - 4"), sw(4))]
        x = xorshr(("kl", "kh"), 51, b48)
        m = mul64(x, P32_1, b48)
        a = add64(m, ("len", "0"), b48)
        x = xorshr(a, 47, b48)
        m = mul64(x, P64_2, b48)
        emit_out(avalanche(m, b48, False), b48)
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
        emit_out(avalanche(a, b916, False), b916)
        empty = (0x0fe1dd04, 0x5342c301)
    # 17-128 bytes
    b17 = []
    acc = mul64(("len", "0"), P64_1, b17)
    b17 += ["let accL = %s;" % acc[0], "let accH = %s;" % acc[1]]
    for cond, pairs in [("len > 96", [("p + 48", 96), ("e - 64", 112)]),
                        ("len > 64", [("p + 32", 64), ("e - 48", 80)]),
                        ("len > 32", [("p + 16", 32), ("e - 32", 48)])]:
        inner = []
        for pp, sec in pairs:
            addmix(pp, sec, inner)
        b17.append("if (%s) {" % cond)
        b17 += ["  " + l for l in inner]
        b17.append("}")
    addmix("p", 0, b17)
    addmix("e - 16", 16, b17)
    emit_out(avalanche(("accL", "accH"), b17, final), b17)
    # 129-240 bytes
    b129 = []
    acc = mul64(("len", "0"), P64_1, b129)
    b129 += ["let accL = %s;" % acc[0], "let accH = %s;" % acc[1]]
    inner = []
    addmix("p + 16 * i", "16 * i", inner)
    b129.append("for (let i = 0; i < 8; i++) {")
    b129 += ["  " + l for l in inner]
    b129.append("}")
    r = avalanche(("accL", "accH"), b129, final)
    b129 += ["accL = %s;" % r[0], "accH = %s;" % r[1]]
    inner = []
    addmix("p + 16 * i", "16 * i - 125", inner)  # 16 * (i - 8) + 3
    b129.append("for (let i = 8, rounds = len >>> 4; i < rounds; i++) {")
    b129 += ["  " + l for l in inner]
    b129.append("}")
    addmix("e - 16", 119, b129)  # secret[136 - 17, ...)
    emit_out(avalanche(("accL", "accH"), b129, final), b129)
    return b13, b48, b916, b17, b129, empty


def function(name, doc, final):
    b13, b48, b916, b17, b129, empty = short_paths(final)
    return '''
/** %s of `data[p, e)` into out[at] (low 32 bits), out[at + 1] (high); `long` above 240 bytes. */
export function %s(
  data: Uint8Array,
  p: number,
  e: number,
  out: Uint32Array,
  at: number,
  long: (data: Uint8Array, p: number, e: number, out: Uint32Array, at: number) => void,
): void {
  const len = e - p;
  if (len > 128) {
    if (len > 240) {
      long(data, p, e, out, at);
      return;
    }
%s
  }
  if (len > 16) {
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
  // The empty input's hash.
  out[at] = 0x%08x;
  out[at + 1] = 0x%08x;
}
''' % (doc, name, block(b129, 4), block(b17, 4), block(b916, 4), block(b48, 4), block(b13, 4), empty[0], empty[1])


SECRET_WORDS_TEXT = ",\n".join("  " + ", ".join(sw(o) for o in range(i, min(i + 6, 189))) for i in range(0, 189, 6))
src = '''// Generated by scripts/gen-xxh3-short.py. Do not edit.
/**
 * XXH3-64 (final) and RocksDB 7.8.3's `Hash64` / `GetSliceHash64` (the XXPH3 preview; both
 * seed 0; see checksum-xxh3.ts for the algorithms and their references) for inputs of 0-240
 * bytes, each flattened into one function with the secret words as literals (lookups in the
 * 129-240 byte loops), so that no uint32 above 2^30 crosses a call (V8 boxes those): the
 * full filter hashes every key it adds or probes with Hash64, and kXXH3 block checksums of
 * small blocks take this path. Longer inputs go to the general implementation (`long`).
 * Tests check both against checksum-xxh3.ts and librocksdb's vectors at every length.
 */

/** The little-endian secret word at every byte offset. */
const SECRET_WORDS = new Uint32Array([
%s
]);
%s%s''' % (SECRET_WORDS_TEXT, function("sliceHash64Short", "RocksDB's Hash64 (XXPH3)", False), function("xxh3Short", "XXH3-64 (final)", True))
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "checksum-xxh3-short.ts")
open(here, "w").write(src)
print("wrote", here)
