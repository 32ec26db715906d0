/**
 * classic-level 3 (LevelDB): writes, getMany and iterator reads are Promises answered from
 * the libuv thread pool; point reads use `getSync`.
 */
import { ClassicLevel } from "classic-level";
import type { EngineGauges, EngineOptions, Feature } from "./engine.js";
import { type LevelDb, LevelEngine } from "./level.js";

export class ClassicLevelEngine extends LevelEngine {
  readonly name = "classic-level";
  private level: ClassicLevel<Uint8Array, Uint8Array> | undefined;

  async open(dir: string, o: EngineOptions): Promise<string[]> {
    const notes: string[] = [];
    const level = new ClassicLevel<Uint8Array, Uint8Array>(dir, {
      keyEncoding: "view",
      valueEncoding: "view",
    });
    await level.open({
      ...(o.cacheSize >= 0 ? { cacheSize: o.cacheSize } : {}),
      blockSize: o.blockSize,
      writeBufferSize: o.writeBufferSize,
      compression: o.compression === "snappy",
    });
    this.level = level;
    this.db = level as unknown as LevelDb;
    this.writeOptions = o.sync ? { sync: true } : {};
    if (o.bloomBits >= 0 && o.bloomBits !== 10)
      notes.push("--bloom_bits: classic-level's Bloom filter is fixed at 10 bits/key");
    if (o.disableWal) notes.push("--disable_wal: LevelDB always writes its log");
    if (o.disableAutoCompactions) notes.push("--disable_auto_compactions: not available");
    if (o.statistics) notes.push("--statistics: prints leveldb.stats");
    return notes;
  }

  unsupported(feature: Feature): string | undefined {
    switch (feature) {
      case "merge":
        return "LevelDB has no merge operator";
      case "waitForCompactions":
        return "LevelDB has no call that waits for its compactions";
      default:
        return undefined;
    }
  }

  async compact(): Promise<void> {
    await this.level!.compactRange(new Uint8Array(0), new Uint8Array(1025).fill(0xff));
  }

  stats(): string {
    return this.level!.getProperty("leveldb.stats");
  }

  gauges(): EngineGauges {
    const files = Number(this.level!.getProperty("leveldb.num-files-at-level0"));
    return Number.isFinite(files) ? { l0Files: files } : {};
  }

  override async close(): Promise<void> {
    await super.close();
    this.level = undefined;
  }
}
