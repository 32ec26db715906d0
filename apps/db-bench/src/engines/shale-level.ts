/**
 * shale through @shale/level: the same abstract-level 3 API as classic-level and
 * memory-level (LevelEngine: Promise writes, getMany and iterators; `getSync` for point
 * reads), so the comparison with them is API for API. Underneath, every call is a
 * synchronous shale call (no thread-pool hop). compact, waitForCompactions and stats go to
 * `db.engine`, the @shale/db DB underneath.
 */
import { ShaleLevel } from "@shale/level";
import type { EngineOptions, Feature } from "./engine.js";
import { type LevelDb, LevelEngine } from "./level.js";

export class ShaleLevelEngine extends LevelEngine {
  readonly name = "shale-level";
  private level: ShaleLevel<Uint8Array, Uint8Array> | undefined;

  async open(dir: string, o: EngineOptions): Promise<string[]> {
    const notes: string[] = [];
    const shale: Record<string, unknown> = {};
    if (o.bloomBits >= 0) shale.bloomBitsPerKey = o.bloomBits;
    if (o.statistics) shale.statistics = true;
    if (o.disableAutoCompactions) shale.disableAutoCompactions = true;
    shale.cacheIndexAndFilterBlocks = o.cacheIndexAndFilterBlocks ?? false;
    const level = new ShaleLevel<Uint8Array, Uint8Array>(dir, {
      keyEncoding: "view",
      valueEncoding: "view",
      ...(o.cacheSize >= 0 ? { cacheSize: o.cacheSize } : {}),
      blockSize: o.blockSize,
      writeBufferSize: o.writeBufferSize,
      compression: o.compression === "snappy",
      shale,
    });
    await level.open();
    this.level = level;
    this.db = level as unknown as LevelDb;
    this.writeOptions = o.sync ? { sync: true } : {};
    if (o.disableWal) notes.push("--disable_wal: the abstract-level API has no such write option");
    if (o.mergeOperator !== undefined) notes.push("--merge_operator: abstract-level has no merge");
    return notes;
  }

  unsupported(feature: Feature): string | undefined {
    return feature === "merge" ? "abstract-level has no merge operation" : undefined;
  }

  async compact(): Promise<void> {
    await this.level!.engine.compactRange();
  }

  override waitForCompactions(): Promise<void> {
    return this.level!.engine.waitForCompactions();
  }

  stats(): string {
    return this.level!.engine.getProperty("shale.stats") ?? "";
  }

  override async close(): Promise<void> {
    await super.close();
    this.level = undefined;
  }
}
