/** The errors a memtable throws from more than one place. */
import { ShaleError } from "@shale/base";

/** An add of an entry the memtable holds already (same user key, seq and kind). */
export function duplicateError(seq: number, kind: number): ShaleError {
  return ShaleError.invalidArgument(`duplicate memtable entry (seq ${seq}, kind ${kind})`);
}

/** A call on a memtable whose last reference was dropped. */
export function releasedError(): ShaleError {
  return ShaleError.closed("memtable was released: its chunks may hold other data now");
}
