/**
 * The primary's side of secondary registrations (format and protocol: registration.ts):
 * obsolete tables, blob files and WALs that a live secondary still reads are kept, and
 * deleted once no live registration names them — when the secondary catches up, or its
 * lease ends. Tables and blob files share one number space: a registration's `tables` list
 * names both.
 *
 * `keep(paths)` is called with every batch of obsolete files the database is about to
 * delete; it returns those that may go now and holds the rest. While it holds any, a timer
 * (unref'd: it never keeps the process alive) looks again every `POLL_MS` (sooner if a
 * lease ends sooner) and hands what was released to `release`. With no `secondaries/`
 * directory the cost is one `exists` per batch.
 */
import { baseName, type FileSystem } from "@shale/base";
import { FileType, parseFileName } from "../core/filenames.js";
import { readPins, registrationDir } from "./registration.js";

const POLL_MS = 1000;

export class SecondaryPins {
  private readonly fs: FileSystem;
  private readonly dir: string;
  private readonly release: (paths: string[]) => void;
  /** Obsolete files kept for a secondary. */
  private readonly held = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(fs: FileSystem, dir: string, release: (paths: string[]) => void) {
    this.fs = fs;
    this.dir = dir;
    this.release = release;
  }

  /** Files held for secondaries right now (for tests and properties). */
  get heldFiles(): readonly string[] {
    return [...this.held].sort();
  }

  /** Of `paths` (and the files held so far), those no live secondary reads. */
  keep(paths: readonly string[]): string[] {
    if (this.held.size === 0 && !this.fs.exists(registrationDir(this.dir))) return [...paths];
    for (const p of paths) this.held.add(p);
    const pins = readPins(this.fs, this.dir);
    const now: string[] = [];
    for (const p of this.held) {
      const parsed = parseFileName(baseName(p));
      const kept =
        parsed !== undefined &&
        (((parsed.type === FileType.Table || parsed.type === FileType.Blob) &&
          pins.tables.has(parsed.number)) ||
          (parsed.type === FileType.Log && parsed.number >= pins.minLog));
      if (!kept) now.push(p);
    }
    for (const p of now) this.held.delete(p);
    this.schedule(pins.nextExpiry);
    return now;
  }

  /** Files of `paths` a live secondary reads (recovery's obsolete-file pass skips them). */
  static pinned(fs: FileSystem, dir: string): (name: string) => boolean {
    const pins = readPins(fs, dir);
    if (pins.live === 0) return () => false;
    return (name) => {
      const parsed = parseFileName(name);
      if (parsed === undefined) return false;
      if (parsed.type === FileType.Table || parsed.type === FileType.Blob)
        return pins.tables.has(parsed.number);
      return parsed.type === FileType.Log && parsed.number >= pins.minLog;
    };
  }

  private schedule(nextExpiry: number): void {
    if (this.closed || this.held.size === 0 || this.timer !== undefined) return;
    const wait = Math.max(10, Math.min(POLL_MS, nextExpiry - Date.now() + 1));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.closed) return;
      // The host's deletion path (it may refuse to delete anything after a failure).
      this.release([]);
    }, wait);
    this.timer.unref?.();
  }

  /** Stops the timer; files still held stay on disk (the next open deletes them). */
  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
