/**
 * What db-bench needs from an engine. Each engine is driven through its fastest fitting
 * API: synchronous calls where it has them.
 */
export interface EngineOptions {
  sync: boolean;
  disableWal: boolean;
  writeBufferSize: number;
  statistics: boolean;
}

export interface Engine {
  readonly name: string;
  /** Opens (creating) a database in `dir`. */
  open(dir: string, options: EngineOptions): Promise<void>;
  put(key: Uint8Array, value: Uint8Array): void;
  /** Writes `keys[i] -> values[i]` as one atomic batch. */
  putBatch(keys: readonly Uint8Array[], values: readonly Uint8Array[]): void;
  get(key: Uint8Array): Uint8Array | undefined;
  delete(key: Uint8Array): void;
  /** Engine statistics as text, if the engine keeps any. */
  stats(): string | undefined;
  close(): Promise<void>;
}
