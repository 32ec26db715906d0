/**
 * Engines by name. Peers load on demand, so a run that names only shale never touches a
 * native module; a peer that fails to load fails the run with the reason (never skipped).
 */
import type { Engine } from "./engine.js";
import { ShaleEngine } from "./shale.js";

export async function createEngine(name: string): Promise<Engine> {
  try {
    switch (name) {
      case "shale":
        return new ShaleEngine();
      case "classic-level":
        return new (await import("./classic-level.js")).ClassicLevelEngine();
      case "lmdb":
        return new (await import("./lmdb.js")).LmdbEngine();
      case "rocksdb":
        return new (await import("./rocksdb.js")).RocksdbEngine();
      case "shale-level":
        return new (await import("./shale-level.js")).ShaleLevelEngine();
      case "memory-level":
        return new (await import("./memory-level.js")).MemoryLevelEngine();
      case "better-sqlite3":
        return new (await import("./better-sqlite3.js")).BetterSqlite3Engine();
      case "rocksdb-native":
        return new (await import("./rocksdb-native.js")).RocksdbNativeEngine();
      default:
        throw new Error("no such engine");
    }
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    throw new Error(`engine "${name}" could not be loaded: ${reason}`, { cause: e });
  }
}
