/**
 * Iterator traces for data-driven files (Pebble's `iter` command). No vitest.
 *
 * Input: one op per line — `first`, `last`, `next`, `prev`, `seek <key>`, `seek-for-prev <key>`
 * (the target parsed by the caller's `parseTarget`). Output: one line per op, the entry the
 * iterator is at (`<key>:<value>`, as `show` prints it), `.` when it is not valid, or
 * `error: <message>` when the op threw (e.g. `next()` on an invalid iterator).
 */
import { decodeUtf8 } from "./text-keys.js";

/** The moves of an iterator the trace drives (InternalIterator and DBIterator have them). */
export interface TraceableIterator {
  valid(): boolean;
  seekToFirst(): void;
  seekToLast(): void;
  seek(target: Uint8Array): void;
  seekForPrev(target: Uint8Array): void;
  next(): void;
  prev(): void;
  key(): Uint8Array;
  value(): Uint8Array;
}

/** Runs the ops of `input` on `it`; returns one line per op. Throws on an unknown op. */
export function traceIterator(
  it: TraceableIterator,
  input: string,
  parseTarget: (text: string) => Uint8Array,
  showKey: (key: Uint8Array) => string,
  showValue: (value: Uint8Array) => string = decodeUtf8,
): string {
  const out: string[] = [];
  for (const raw of input.split("\n")) {
    const op = raw.trim();
    if (op === "" || op.startsWith("#")) continue;
    const space = op.indexOf(" ");
    const verb = space < 0 ? op : op.slice(0, space);
    const arg = space < 0 ? "" : op.slice(space + 1).trim();
    try {
      move(it, verb, arg, parseTarget, op);
    } catch (e) {
      if (e instanceof TypeError && e.message.startsWith("unknown iterator op")) throw e;
      out.push(`error: ${e instanceof Error ? e.message : String(e)}`);
      continue;
    }
    out.push(it.valid() ? `${showKey(it.key())}:${showValue(it.value())}` : ".");
  }
  return out.join("\n");
}

function move(
  it: TraceableIterator,
  verb: string,
  arg: string,
  parseTarget: (text: string) => Uint8Array,
  op: string,
): void {
  switch (verb) {
    case "first":
      it.seekToFirst();
      break;
    case "last":
      it.seekToLast();
      break;
    case "next":
      it.next();
      break;
    case "prev":
      it.prev();
      break;
    case "seek":
      it.seek(parseTarget(arg));
      break;
    case "seek-for-prev":
      it.seekForPrev(parseTarget(arg));
      break;
    default:
      throw new TypeError(`unknown iterator op ${JSON.stringify(op)}`);
  }
}
