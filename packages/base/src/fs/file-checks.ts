/** Argument checks every FileSystem implementation makes (exported for implementations elsewhere). */
import { ShaleError } from "../errors.js";

/** Throws InvalidArgument unless `[start, end)` is an integer range within `length`. */
export function checkRange(what: string, start: number, end: number, length: number): void {
  if (
    !Number.isInteger(start) ||
    !Number.isInteger(end) ||
    start < 0 ||
    start > end ||
    end > length
  ) {
    throw ShaleError.invalidArgument(`${what}: range [${start}, ${end}) outside [0, ${length})`);
  }
}

/** Throws InvalidArgument unless `value` is a non-negative integer. */
export function checkCount(what: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) {
    throw ShaleError.invalidArgument(`${what}: ${value} is not a non-negative integer`);
  }
}
