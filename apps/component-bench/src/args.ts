/**
 * Command-line flags of the component benches: `--name=value` or a bare `--name` (true).
 * Each bench names the flags it knows; an unknown flag or a value that is not what the flag
 * takes throws (a typo must not silently run the default workload).
 */
export class Args {
  private readonly values = new Map<string, string>();

  constructor(argv: readonly string[], known: readonly string[]) {
    for (const a of argv) {
      if (!a.startsWith("--")) throw new Error(`unexpected argument ${a}`);
      const eq = a.indexOf("=");
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      if (!known.includes(name)) {
        throw new Error(`unknown flag --${name} (known: ${known.map((k) => `--${k}`).join(" ")})`);
      }
      this.values.set(name, eq < 0 ? "true" : a.slice(eq + 1));
    }
  }

  /** Whether `--name` was given (bare, or `=true` / `=1`). */
  flag(name: string): boolean {
    const v = this.values.get(name);
    if (v === undefined || v === "false" || v === "0") return false;
    if (v === "true" || v === "1") return true;
    throw new Error(`--${name} takes no value or true/false, got ${v}`);
  }

  /** A positive number; `fallback` when absent. */
  number(name: string, fallback: number): number {
    const v = this.values.get(name);
    if (v === undefined) return fallback;
    const x = Number(v);
    if (v === "" || !Number.isFinite(x) || x <= 0) {
      throw new Error(`--${name} must be a positive number, got ${v}`);
    }
    return x;
  }

  /** A comma-separated list of positive numbers; `fallback` when absent. */
  numbers(name: string, fallback: readonly number[]): number[] {
    const v = this.values.get(name);
    if (v === undefined) return [...fallback];
    return v.split(",").map((s) => {
      const x = Number(s);
      if (s === "" || !Number.isFinite(x) || x <= 0) {
        throw new Error(`--${name} must be positive numbers separated by commas, got ${v}`);
      }
      return x;
    });
  }

  /** A comma-separated list of names, each one of `allowed`; undefined when absent. */
  names(name: string, allowed: readonly string[]): string[] | undefined {
    const v = this.values.get(name);
    if (v === undefined) return undefined;
    const out = v.split(",");
    for (const n of out) {
      if (!allowed.includes(n)) {
        throw new Error(`--${name}: ${n} is not one of ${allowed.join(", ")}`);
      }
    }
    return out;
  }
}
