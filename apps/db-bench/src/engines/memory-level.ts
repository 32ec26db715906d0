/**
 * memory-level 3 (a red-black tree in memory): writes, getMany and iterator reads are
 * Promises (settled without I/O); point reads use `getSync`. It keeps the buffers it is
 * given, so keys are copied. Nothing reaches the disk: --sync and the directory are ignored.
 */
import { MemoryLevel } from "memory-level";
import type { EngineOptions, Feature } from "./engine.js";
import { type LevelDb, LevelEngine } from "./level.js";

export class MemoryLevelEngine extends LevelEngine {
  readonly name = "memory-level";

  async open(_dir: string, o: EngineOptions): Promise<string[]> {
    const level = new MemoryLevel<Uint8Array, Uint8Array>({
      keyEncoding: "view",
      valueEncoding: "view",
      storeEncoding: "view",
    });
    await level.open();
    this.db = level as unknown as LevelDb;
    const notes = ["in memory: no disk, no cache, no compression; --sync has no effect"];
    if (o.disableWal || o.disableAutoCompactions)
      notes.push("WAL and compaction flags do not apply");
    return notes;
  }

  protected override own(bytes: Uint8Array): Uint8Array {
    return new Uint8Array(bytes);
  }

  unsupported(feature: Feature): string | undefined {
    switch (feature) {
      case "merge":
        return "memory-level has no merge operator";
      case "compact":
      case "waitForCompactions":
        return "memory-level has nothing to compact";
      case "stats":
        return "memory-level keeps no statistics";
      default:
        return undefined;
    }
  }

  compact(): Promise<void> {
    return Promise.reject(new Error("memory-level has nothing to compact"));
  }

  stats(): string {
    return "";
  }
}
