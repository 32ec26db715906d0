/**
 * What the WebAssembly modules (snappy-wasm.ts, snappy-compress.ts, index-wasm.ts) share:
 * compiling a module from its base64 bytes once per thread, and growing its memory to fit.
 * The package compiles without the DOM lib, so the part of the WebAssembly API used is
 * declared here.
 */

/** A module's exported memory. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
};

const PAGE = 65536;

/** The exports of the module in `base64` (no imports), or undefined where it cannot compile. */
export function instantiateWasm(base64: string): unknown {
  try {
    const module = new WebAssembly.Module(Buffer.from(base64, "base64"));
    return new WebAssembly.Instance(module, {}).exports;
  } catch {
    return undefined;
  }
}

/**
 * A getter of this thread's wrapper of the module in `base64`: compiled and wrapped by
 * `make` on first use, undefined (every time) where WebAssembly cannot compile it.
 */
export function lazyWasm<T>(base64: string, make: (exports: unknown) => T): () => T | undefined {
  let made: T | null | undefined;
  return () => {
    if (made === undefined) {
      const exports = instantiateWasm(base64);
      made = exports === undefined ? null : make(exports);
    }
    return made ?? undefined;
  };
}

/**
 * `bytes` (a view of all of `memory`) if it holds `need` bytes, else a view of `memory`
 * grown by whole pages to hold them (the old view is detached then).
 */
export function memoryFor(memory: WasmMemory, bytes: Uint8Array, need: number): Uint8Array {
  if (need <= bytes.length) return bytes;
  memory.grow(Math.ceil((need - bytes.length) / PAGE));
  return new Uint8Array(memory.buffer);
}
