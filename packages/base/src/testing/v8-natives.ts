/**
 * V8's natives syntax for tests that check what the optimizing compiler did: the flag is
 * switched on at run time (`--allow-natives-syntax`) the first time one of these is called,
 * and each helper is a function compiled after that.
 */
import { setFlagsFromString } from "node:v8";

/** V8's OptimizationStatus bit: the function runs optimized code. */
const OPTIMIZED = 1 << 4;

let natives:
  | {
      status: (f: unknown) => number;
      optimizeNext: (f: unknown) => void;
      sameMap: (a: unknown, b: unknown) => boolean;
    }
  | undefined;

function get(): NonNullable<typeof natives> {
  if (natives === undefined) {
    setFlagsFromString("--allow-natives-syntax");
    natives = {
      status: new Function("f", "return %GetOptimizationStatus(f);") as (f: unknown) => number,
      optimizeNext: new Function(
        "f",
        "%PrepareFunctionForOptimization(f); %OptimizeFunctionOnNextCall(f);",
      ) as (f: unknown) => void,
      sameMap: new Function("a", "b", "return %HaveSameMap(a, b);") as (
        a: unknown,
        b: unknown,
      ) => boolean,
    };
  }
  return natives;
}

/** Has V8 compile `f` with its optimizing compiler at its next call. */
export function optimizeOnNextCall(f: unknown): void {
  get().optimizeNext(f);
}

/** True if `f` runs optimized code now. */
export function isOptimized(f: unknown): boolean {
  return (get().status(f) & OPTIMIZED) === OPTIMIZED;
}

/** True if objects `a` and `b` have the same hidden class (V8's map) now. */
export function haveSameMap(a: object, b: object): boolean {
  return get().sameMap(a, b);
}
