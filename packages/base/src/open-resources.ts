/**
 * Resources not closed, reported in invariants mode (Pebble's leak checks): readers and
 * iterators call `trackOpen` when made and `trackClosed` when closed. `unclosedResources()`
 * lists the ones still open — each with where it was opened — and one that is garbage
 * collected without `close()` is reported with a process warning (`ShaleUnclosedWarning`) and
 * kept in `collectedUnclosed()`. Off (invariants mode off) every call returns at once.
 */
import { invariants } from "./invariants.js";

interface Tracked {
  description: string;
  ref: WeakRef<object>;
}

const open = new Map<number, Tracked>();
const ids = new WeakMap<object, number>();
const collected: string[] = [];
let nextId = 1;
/** Process warnings for collected, unclosed resources: at most this many. */
const MAX_WARNINGS = 10;

const registry =
  typeof FinalizationRegistry === "undefined"
    ? undefined
    : new FinalizationRegistry<number>((id) => {
        const t = open.get(id);
        if (t === undefined) return;
        open.delete(id);
        collected.push(t.description);
        // The first few are warned about; all are kept in `collectedUnclosed()`.
        if (
          collected.length <= MAX_WARNINGS &&
          typeof process !== "undefined" &&
          typeof process.emitWarning === "function"
        ) {
          process.emitWarning(`${t.description} was garbage-collected without close()`, {
            type: "ShaleUnclosedWarning",
          });
        }
      });

/** Where the caller of the caller of `trackOpen` is (a few stack frames). */
function openedAt(): string {
  const stack = new Error().stack ?? "";
  const frames = stack
    .split("\n")
    .slice(3, 6)
    .map((l) => l.trim().replace(/^at /, ""));
  return frames.length > 0 ? ` (opened at ${frames.join(" < ")})` : "";
}

/** Records `resource` as open (invariants mode only). `what` says what it is, e.g. a file name. */
export function trackOpen(resource: object, what: string): void {
  if (!invariants) return;
  const id = nextId++;
  ids.set(resource, id);
  open.set(id, { description: `${what}${openedAt()}`, ref: new WeakRef(resource) });
  registry?.register(resource, id, resource);
}

/** Records `resource` as closed (idempotent; nothing when it was never tracked). */
export function trackClosed(resource: object): void {
  if (!invariants) return;
  const id = ids.get(resource);
  if (id === undefined) return;
  ids.delete(resource);
  open.delete(id);
  registry?.unregister(resource);
}

/**
 * The tracked resources still open, optionally only those `filter` accepts, as
 * descriptions (what, and where it was opened).
 */
export function unclosedResources(filter?: (resource: object) => boolean): string[] {
  const out: string[] = [];
  for (const t of open.values()) {
    const r = t.ref.deref();
    if (r !== undefined && (filter === undefined || filter(r))) out.push(t.description);
  }
  return out;
}

/** Resources garbage-collected without `close()` since the process started. */
export function collectedUnclosed(): readonly string[] {
  return collected;
}
