/**
 * The open options that name user code by module (core/user-module.ts): `compactionFilter`
 * and a `mergeOperator` given as `{ module, name }`, at the database's level and in each
 * `columnFamilies` entry. `DB.open` (and `createColumnFamily`) import them BEFORE anything
 * else happens, so a module that cannot be loaded, or lacks the export, or exports the
 * wrong thing, is InvalidArgument before a file is written; what they import replaces the
 * `{ module, name }` in the options the rest of the open sees (`resolveOptions`).
 *
 * A merge operator loaded from a module is the module's export object itself; this file
 * remembers which module it came from, so a worker thread can import the same one
 * (background/protocol.ts `mergeOperatorRef`).
 */
import { type CompactionFilterOption, loadCompactionFilter } from "./compaction-filter.js";
import type { MergeOperator } from "./merge-operator.js";
import type { ColumnFamilyOptions, DbOptions } from "./options.js";
import {
  isModuleExportOption,
  loadModuleExport,
  type ModuleExportOption,
  type ModuleExportRef,
  moduleExportRef,
} from "./user-module.js";

const modules = new WeakMap<MergeOperator, ModuleExportRef>();

/** The module a merge operator was loaded from, if it was. */
export function mergeOperatorModule(op: MergeOperator): ModuleExportRef | undefined {
  return modules.get(op);
}

function notMergeOperator(v: unknown): string | undefined {
  if (typeof v !== "object" || v === null) return "is not a MergeOperator object";
  const o = v as Record<string, unknown>;
  if (typeof o["name"] !== "string" || o["name"] === "") return "has no name (a string)";
  if (typeof o["fullMerge"] !== "function") return "has no fullMerge function";
  if (o["partialMerge"] !== undefined && typeof o["partialMerge"] !== "function")
    return "has a partialMerge that is not a function";
  return undefined;
}

/** Imports the merge operator a `{ module, name }` names (the export object itself). */
export async function loadMergeOperator(
  option: ModuleExportOption,
  what: string,
): Promise<MergeOperator> {
  const ref = moduleExportRef(option, what);
  const op = await loadModuleExport<MergeOperator>(ref, what, notMergeOperator);
  if (!modules.has(op)) modules.set(op, ref);
  return op;
}

/** True if a family's options name a module (`preloadFamilyOptions` has work to do). */
export function hasModules(options: ColumnFamilyOptions | undefined): boolean {
  if (typeof options !== "object" || options === null) return false;
  const o = options as { mergeOperator?: unknown; compactionFilter?: unknown };
  return isModuleExportOption(o.mergeOperator) || o.compactionFilter !== undefined;
}

/** A family's (or the database's) options with their modules imported. */
async function preload<T extends ColumnFamilyOptions>(o: T, where: string): Promise<T> {
  const m = (o as { mergeOperator?: unknown }).mergeOperator;
  const f = (o as { compactionFilter?: unknown }).compactionFilter;
  if (!isModuleExportOption(m) && f === undefined) return o;
  const out: Record<string, unknown> = { ...o };
  if (isModuleExportOption(m))
    out["mergeOperator"] = await loadMergeOperator(m, `${where}.mergeOperator`);
  if (f !== undefined)
    out["compactionFilter"] = await loadCompactionFilter(f, `${where}.compactionFilter`);
  return out as T;
}

/**
 * `options` with every module they name imported (see the header); anything that is not
 * an object is returned as it is, for `resolveOptions` to refuse.
 */
export async function preloadModuleOptions(
  options: DbOptions | undefined,
): Promise<DbOptions | undefined> {
  if (typeof options !== "object" || options === null) return options;
  const out = await preload(options, "options");
  const families = options.columnFamilies;
  if (typeof families !== "object" || families === null) return out;
  const loaded: Record<string, ColumnFamilyOptions> = {};
  let changed = false;
  for (const [name, cf] of Object.entries(families)) {
    loaded[name] =
      typeof cf === "object" && cf !== null
        ? await preload(cf, `options.columnFamilies[${JSON.stringify(name)}]`)
        : cf;
    if (loaded[name] !== cf) changed = true;
  }
  return changed ? { ...out, columnFamilies: loaded } : out;
}

/** A new family's options (`createColumnFamily`) with their modules imported. */
export async function preloadFamilyOptions(
  options: ColumnFamilyOptions | undefined,
  name: string,
): Promise<ColumnFamilyOptions | undefined> {
  if (typeof options !== "object" || options === null) return options;
  return preload(options, `column family ${JSON.stringify(name)} options`);
}

export type { CompactionFilterOption };
