/**
 * Option validation, table-driven: one `OptionTable` per options type (open options in
 * options.ts; write, read, iterator and flush options in call-options.ts), each a list of
 * rows `name -> type, allowed values or range`. The rules are the same for every call:
 *
 * - the options argument itself must be a plain object (or undefined): anything else —
 *   a string, a number, null, an array, a function — is a `TypeError`;
 * - an unknown name (a typo, an option of another call) is `ShaleError` InvalidArgument
 *   naming it;
 * - a value of the wrong type is a `TypeError` naming the option and what it must be;
 *   `null` is a wrong type like any other (only `undefined` means "the default");
 * - a value of the right type outside the allowed values or range is InvalidArgument.
 *
 * Cost: the call sites test `options !== undefined` before calling `check`, so a call
 * without options pays one comparison; with options, one `for...in` over their own few
 * keys and a Map lookup each.
 */
import { ShaleError } from "@shale/base";

/** One option: its name, the type it must have, and (for that type) what is allowed. */
export interface OptionRow {
  readonly name: string;
  /** The type in words, for the TypeError: "a boolean", "an integer", ... */
  readonly type: string;
  /** True if `value` has the right type. */
  readonly is: (value: unknown) => boolean;
  /** For a value of the right type: why it is not allowed ("must be >= 1"), or undefined. */
  readonly allowed?: (value: never) => string | undefined;
}

/** A short description of a value's type, for error messages. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `a string (${JSON.stringify(value.slice(0, 20))})`;
  if (typeof value === "object") return `an object (${value.constructor?.name ?? "no prototype"})`;
  return `${typeof value} ${String(value)}`;
}

export class OptionTable {
  private readonly rows = new Map<string, OptionRow>();

  /** `what`: how messages name the argument ("writeOptions", "options"). */
  constructor(
    readonly what: string,
    rows: readonly OptionRow[],
  ) {
    for (const row of rows) {
      if (this.rows.has(row.name)) throw new Error(`duplicate option row ${row.name}`);
      this.rows.set(row.name, row);
    }
  }

  /** The option names, in table order. */
  get names(): string[] {
    return [...this.rows.keys()];
  }

  /** Throws unless `options` is a valid object of this table's options (see the file comment). */
  check(options: unknown): void {
    if (typeof options !== "object" || options === null || Array.isArray(options)) {
      throw new TypeError(`${this.what} must be an object; got ${describeValue(options)}`);
    }
    const o = options as Record<string, unknown>;
    // Inherited enumerable names too: the engine reads options by property access.
    for (const name in o) {
      const row = this.rows.get(name);
      if (row === undefined) {
        throw ShaleError.invalidArgument(
          `unknown ${this.what} option "${name}" (${this.rows.size === 0 ? "it takes none yet" : `known: ${this.names.join(", ")}`})`,
        );
      }
      const value = o[name];
      if (value === undefined) continue;
      if (!row.is(value)) {
        throw new TypeError(
          `${this.what}.${name} must be ${row.type}; got ${describeValue(value)}`,
        );
      }
      const why = row.allowed?.(value as never);
      if (why !== undefined) {
        throw ShaleError.invalidArgument(`${this.what}.${name} ${why}; got ${String(value)}`);
      }
    }
  }
}

// ---------------------------------------------------------------- row builders

/** A boolean option. */
export function booleanRow(name: string): OptionRow {
  return { name, type: "a boolean", is: (v) => typeof v === "boolean" };
}

/** An integer option in [min, max] (a non-integer number, NaN or Infinity is out of range). */
export function integerRow(name: string, min: number, max = Number.MAX_SAFE_INTEGER): OptionRow {
  return {
    name,
    type: "a number",
    is: (v) => typeof v === "number",
    allowed: (v: number) =>
      Number.isInteger(v) && v >= min && v <= max
        ? undefined
        : max === Number.MAX_SAFE_INTEGER
          ? `must be an integer >= ${min}`
          : `must be an integer in [${min}, ${max}]`,
  };
}

/** One of a fixed list of strings. */
export function enumRow(name: string, values: readonly string[]): OptionRow {
  return {
    name,
    type: "a string",
    is: (v) => typeof v === "string",
    allowed: (v: string) =>
      values.includes(v) ? undefined : `must be one of ${values.map((x) => `"${x}"`).join(", ")}`,
  };
}

/** A key bound: bytes (Uint8Array, Buffer) or a well-formed string. */
export function keyRow(name: string): OptionRow {
  return {
    name,
    type: "a Uint8Array, Buffer or string",
    is: (v) => v instanceof Uint8Array || typeof v === "string",
  };
}

/** A row with its own type test (`type` names what it must be). */
export function customRow(
  name: string,
  type: string,
  is: (value: unknown) => boolean,
  allowed?: (value: never) => string | undefined,
): OptionRow {
  return allowed === undefined ? { name, type, is } : { name, type, is, allowed };
}
