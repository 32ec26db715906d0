/**
 * User code named by module, so that it can run where compactions run — in the background
 * worker threads as well as on the database's own thread. A function cannot cross to a
 * worker; a module specifier and an export name can, and each thread imports the module
 * itself:
 *
 * ```
 *   open(dir, { compactionFilter: { module: new URL("./filters.js", import.meta.url), name: "dropTmp" } })
 *     main thread: import(module)[name] at open (InvalidArgument if that fails)
 *     worker:      import(module)[name] before its first compaction that needs it (cached)
 * ```
 *
 * `module` is a `file:` URL (a URL object or its string: the way to name your own file), an
 * absolute path, or a package specifier (`"my-filters"`), which resolves as an `import()`
 * written in @shale/db would (from where shale is installed). A relative specifier
 * (`"./x.js"`) is InvalidArgument: relative to what would be a guess.
 *
 * What is imported must be side-effect-free to import twice (once per thread) and must not
 * keep state between calls that other threads would need to see: each worker has its own
 * copy of the module.
 */
import { ShaleError } from "@shale/base";

/** A module export named by specifier and export name (what crosses to a worker). */
export interface ModuleExportRef {
  /** A `file:` URL, an absolute path or a package specifier. */
  readonly module: string;
  /** The export's name (`"default"` for the default export). */
  readonly name: string;
}

/** What an option naming a module export accepts: `module` may be a URL object. */
export interface ModuleExportOption {
  module: string | URL;
  name: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** True if `v` has the shape of a `{ module, name }` option (not checked further). */
export function isModuleExportOption(v: unknown): v is ModuleExportOption {
  return (
    isObject(v) &&
    (typeof v["module"] === "string" || v["module"] instanceof URL) &&
    typeof v["name"] === "string" &&
    typeof v["fullMerge"] !== "function"
  );
}

/** The `ModuleExportRef` of an option; TypeError or InvalidArgument (naming `what`) when bad. */
export function moduleExportRef(v: unknown, what: string): ModuleExportRef {
  if (!isObject(v)) throw new TypeError(`${what} must be an object { module, name }`);
  const m = v["module"];
  const name = v["name"];
  if (typeof m !== "string" && !(m instanceof URL))
    throw new TypeError(`${what}.module must be a string (a file URL or a specifier) or a URL`);
  if (typeof name !== "string") throw new TypeError(`${what}.name must be a string`);
  const module = m instanceof URL ? m.href : m;
  if (module === "" || name === "")
    throw ShaleError.invalidArgument(`${what}: module and name must not be empty`);
  if (module.startsWith("./") || module.startsWith("../"))
    throw ShaleError.invalidArgument(
      `${what}.module ${JSON.stringify(module)} is relative: give a file URL (new URL("${module}", import.meta.url)) or an absolute path`,
    );
  return Object.freeze({ module, name });
}

/** The specifier `import()` is given for `module` (an absolute path becomes a file URL). */
function importSpecifier(module: string): string {
  if (module.startsWith("/")) return new URL(`file://${encodeURI(module)}`).href;
  return module;
}

const loaded = new Map<string, Promise<unknown>>();

/**
 * Imports `ref.module` (once per thread) and returns its export `ref.name`, checked by
 * `check` (which returns what is wrong, or undefined). InvalidArgument naming `what` when
 * the module cannot be loaded, has no such export, or the export fails the check.
 */
export async function loadModuleExport<T>(
  ref: ModuleExportRef,
  what: string,
  check: (value: unknown) => string | undefined,
): Promise<T> {
  const key = ref.module;
  let pending = loaded.get(key);
  if (pending === undefined) {
    pending = import(/* @vite-ignore */ importSpecifier(ref.module));
    loaded.set(key, pending);
  }
  let mod: Record<string, unknown>;
  try {
    mod = (await pending) as Record<string, unknown>;
  } catch (e) {
    loaded.delete(key);
    throw ShaleError.invalidArgument(
      `${what}: cannot load module ${JSON.stringify(ref.module)}: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  if (!(ref.name in mod))
    throw ShaleError.invalidArgument(
      `${what}: module ${JSON.stringify(ref.module)} has no export ${JSON.stringify(ref.name)}`,
    );
  const value = mod[ref.name];
  const wrong = check(value);
  if (wrong !== undefined)
    throw ShaleError.invalidArgument(
      `${what}: export ${JSON.stringify(ref.name)} of ${JSON.stringify(ref.module)} ${wrong}`,
    );
  return value as T;
}
