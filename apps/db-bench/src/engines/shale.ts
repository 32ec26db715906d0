import { type DB, open, Statistics, WriteBatch } from "shale";
import type { Engine, EngineOptions } from "./engine.js";

export class ShaleEngine implements Engine {
  readonly name = "shale";
  private db: DB | undefined;
  private writeOptions: { sync: boolean; disableWAL: boolean } = { sync: false, disableWAL: false };
  private readonly batch = new WriteBatch();

  async open(dir: string, options: EngineOptions): Promise<void> {
    this.writeOptions = { sync: options.sync, disableWAL: options.disableWal };
    this.db = await open(dir, {
      writeBufferSize: options.writeBufferSize,
      ...(options.statistics ? { statistics: new Statistics() } : {}),
    });
  }

  put(key: Uint8Array, value: Uint8Array): void {
    this.db!.put(key, value, this.writeOptions);
  }

  putBatch(keys: readonly Uint8Array[], values: readonly Uint8Array[]): void {
    const b = this.batch.clear();
    for (let i = 0; i < keys.length; i++) b.put(keys[i]!, values[i]!);
    this.db!.write(b, this.writeOptions);
  }

  get(key: Uint8Array): Uint8Array | undefined {
    return this.db!.get(key);
  }

  delete(key: Uint8Array): void {
    this.db!.delete(key, this.writeOptions);
  }

  stats(): string | undefined {
    return this.db!.getProperty("shale.stats");
  }

  async close(): Promise<void> {
    await this.db?.close();
    this.db = undefined;
  }
}
