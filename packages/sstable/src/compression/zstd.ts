/**
 * ZSTD: zstd's own C library compiled to WebAssembly (the module of `@bokuweb/zstd-wasm`
 * 0.0.27, embedded as base64 in zstd-wasm-bytes.ts by scripts/zstd-wasm.mjs), driven here
 * through its raw exports: one compression and one decompression context, reused; input,
 * output and dictionary in buffers of the module's heap that grow as needed.
 *
 * Loading: `loadZstd()` compiles and instantiates the module asynchronously (browsers refuse
 * to compile a module of this size synchronously on the main thread); the database's
 * `open()` awaits it, after which every call is synchronous. Where nothing awaited it, the
 * first use compiles synchronously (Node, Bun and Deno allow it); where that fails too, the
 * codec is unavailable (`zstdCodec()` is undefined) and callers say NotSupported.
 *
 * Dictionaries: `ZSTD_compress_usingDict` / `ZSTD_decompress_usingDict` take either a zstd
 * dictionary (magic 0xEC30A437, dictionary ID, entropy tables, then content: what RocksDB's
 * `zstd_max_train_bytes` trains) or, for any other bytes, raw content (what RocksDB samples
 * when it does not train). The dictionary in the heap is replaced only when a different
 * `Uint8Array` is passed.
 *
 * Speed on RocksDB's 4 KiB db_bench blocks: see compression.ts.
 */
import { ZSTD_WASM_BASE64 } from "./zstd-wasm-bytes.js";

/** The module's exports by their minified names (fixed by the pinned build). */
interface ZstdExports {
  /** memory */
  f: { buffer: ArrayBuffer; grow(pages: number): number };
  /** __wasm_call_ctors */
  g(): void;
  /** ZSTD_isError(code) */
  h(code: number): number;
  /** ZSTD_compressBound(size) */
  i(size: number): number;
  /** ZSTD_createCCtx() */
  j(): number;
  /** ZSTD_compress_usingDict(cctx, dst, cap, src, size, dict, dictSize, level) */
  l(
    cctx: number,
    dst: number,
    cap: number,
    src: number,
    size: number,
    dict: number,
    dictSize: number,
    level: number,
  ): number;
  /** ZSTD_createDCtx() */
  n(): number;
  /** ZSTD_getFrameContentSize(src, size): low 32 bits; -1 unknown, -2 error */
  p(src: number, size: number): number;
  /** ZSTD_decompress_usingDict(dctx, dst, cap, src, size, dict, dictSize) */
  q(
    dctx: number,
    dst: number,
    cap: number,
    src: number,
    size: number,
    dict: number,
    dictSize: number,
  ): number;
  /** malloc(size) */
  s(size: number): number;
  /** free(ptr) */
  t(ptr: number): void;
}

declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
  instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: unknown } }>;
};

/** zstd's error code for an output buffer too small (ZSTD_error_dstSize_tooSmall). */
const DST_SIZE_TOO_SMALL = 70;
/** Largest output `decompress` will produce (guards against damaged or hostile frames). */
const MAX_OUTPUT = 1 << 30;

/** A zstd error: the library's negative return value, with its code. */
export class ZstdError extends Error {
  constructor(readonly code: number) {
    super(`zstd error ${code}`);
  }
}

/** A growable buffer in the module's heap. */
interface HeapBuffer {
  ptr: number;
  size: number;
}

/** Synchronous zstd over one instance of the module (single-threaded; not reentrant). */
export class ZstdCodec {
  private readonly x: ZstdExports;
  private heap: Uint8Array;
  private readonly cctx: number;
  private readonly dctx: number;
  private readonly input: HeapBuffer = { ptr: 0, size: 0 };
  private readonly output: HeapBuffer = { ptr: 0, size: 0 };
  private readonly dictBuf: HeapBuffer = { ptr: 0, size: 0 };
  /** The dictionary whose bytes are in `dictBuf` (by identity). */
  private loadedDict: Uint8Array | undefined;

  constructor(exports: ZstdExports) {
    this.x = exports;
    exports.g();
    this.cctx = exports.j();
    this.dctx = exports.n();
    this.heap = new Uint8Array(exports.f.buffer);
  }

  /** A view of the whole heap (refreshed: malloc and the codecs may grow the memory). */
  private view(): Uint8Array {
    const buffer = this.x.f.buffer;
    if (this.heap.buffer !== buffer) this.heap = new Uint8Array(buffer);
    return this.heap;
  }

  private reserve(buf: HeapBuffer, size: number): number {
    if (buf.size < size) {
      if (buf.ptr !== 0) this.x.t(buf.ptr);
      const want = Math.max(size, 2 * buf.size, 4096);
      buf.ptr = this.x.s(want);
      if (buf.ptr === 0) throw new RangeError(`zstd: cannot allocate ${want} bytes`);
      buf.size = want;
    }
    return buf.ptr;
  }

  /** Copies `dict` into the heap unless it is the one there; returns its size (0 for none). */
  private useDict(dict: Uint8Array | undefined): number {
    if (dict === undefined || dict.length === 0) return 0;
    if (this.loadedDict !== dict) {
      this.reserve(this.dictBuf, dict.length);
      this.view().set(dict, this.dictBuf.ptr);
      this.loadedDict = dict;
    }
    return dict.length;
  }

  /**
   * One zstd frame of `raw` at `level` (with `dict` if given), in a fresh array followed by
   * `tail` bytes of room. Throws ZstdError if the library fails.
   */
  compress(raw: Uint8Array, level: number, dict?: Uint8Array, tail = 0): Uint8Array {
    const x = this.x;
    const dictSize = this.useDict(dict);
    const cap = x.i(raw.length);
    const src = this.reserve(this.input, raw.length);
    const dst = this.reserve(this.output, cap);
    this.view().set(raw, src);
    const n = x.l(this.cctx, dst, cap, src, raw.length, this.dictBuf.ptr, dictSize, level);
    if (x.h(n) !== 0) throw new ZstdError(-n);
    const out = new Uint8Array(n + tail);
    out.set(this.view().subarray(dst, dst + n));
    return out;
  }

  /**
   * Decodes the zstd frame(s) in `frame` (with `dict` if given) into a fresh array. `length`
   * is the expected output size, or -1 when unknown (then the frame's content size, else a
   * growing guess). Throws ZstdError for a malformed frame (code 70: larger than `length`).
   */
  decompress(frame: Uint8Array, length: number, dict?: Uint8Array): Uint8Array {
    const x = this.x;
    const dictSize = this.useDict(dict);
    const src = this.reserve(this.input, frame.length);
    this.view().set(frame, src);
    let cap = length;
    let exact = length >= 0;
    if (!exact) {
      const declared = x.p(src, frame.length);
      if (declared >= 0 && declared <= MAX_OUTPUT) {
        cap = declared;
        exact = true;
      } else {
        cap = Math.min(MAX_OUTPUT, Math.max(4096, 4 * frame.length));
      }
    }
    for (;;) {
      const dst = this.reserve(this.output, Math.max(cap, 1));
      const n = x.q(this.dctx, dst, cap, src, frame.length, this.dictBuf.ptr, dictSize);
      if (x.h(n) === 0) return this.view().slice(dst, dst + n);
      if (exact || -n !== DST_SIZE_TOO_SMALL || cap >= MAX_OUTPUT) throw new ZstdError(-n);
      cap = Math.min(MAX_OUTPUT, cap * 4);
    }
  }
}

/** The instance's imports: emscripten's runtime hooks, as this build calls them. */
function imports(memory: () => ZstdExports["f"]): object {
  const fail = (what: string) => () => {
    throw new Error(`zstd WebAssembly: ${what}`);
  };
  return {
    a: {
      a: fail("exit"),
      b: () => {},
      c: fail("abort"),
      d: () => 0,
      e: (requested: number) => {
        const mem = memory();
        const need = (requested >>> 0) - mem.buffer.byteLength;
        if (need <= 0) return 1;
        try {
          mem.grow(Math.ceil(need / 65536));
          return 1;
        } catch {
          return 0;
        }
      },
    },
  };
}

function decodeBase64(base64: string): Uint8Array {
  const g = globalThis as { Buffer?: { from(s: string, e: string): Uint8Array } };
  if (g.Buffer !== undefined) return g.Buffer.from(base64, "base64");
  const bin = atob(base64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** The codec once made: undefined = not yet, null = cannot be made here. */
let codec: ZstdCodec | null | undefined;
let loading: Promise<boolean> | undefined;

/**
 * Compiles and instantiates the zstd module asynchronously, once per thread. Resolves true
 * when the codec is ready (then `zstdCodec()` is synchronous), false where WebAssembly is
 * unavailable.
 */
export function loadZstd(): Promise<boolean> {
  if (codec !== undefined) return Promise.resolve(codec !== null);
  loading ??= (async () => {
    try {
      let exports: ZstdExports | undefined;
      const { instance } = await WebAssembly.instantiate(
        decodeBase64(ZSTD_WASM_BASE64),
        imports(() => (exports as ZstdExports).f),
      );
      exports = instance.exports as ZstdExports;
      codec ??= new ZstdCodec(exports);
    } catch {
      codec ??= null;
    }
    return codec !== null;
  })();
  return loading;
}

/**
 * This thread's zstd codec: the one `loadZstd` made, else compiled synchronously now; undefined
 * where WebAssembly cannot (then every later call is undefined too).
 */
export function zstdCodec(): ZstdCodec | undefined {
  if (codec === undefined) {
    try {
      let exports: ZstdExports | undefined;
      const module = new WebAssembly.Module(decodeBase64(ZSTD_WASM_BASE64));
      const instance = new WebAssembly.Instance(
        module,
        imports(() => (exports as ZstdExports).f),
      );
      exports = instance.exports as ZstdExports;
      codec = new ZstdCodec(exports);
    } catch {
      codec = null;
    }
  }
  return codec ?? undefined;
}
