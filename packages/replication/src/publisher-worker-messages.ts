/**
 * The messages between a publisher on the database's thread (publisher-worker-handle.ts) and
 * its worker (publisher-worker.ts). Errors cross as their fields (a structured clone of an
 * Error loses its class): `toWire` on one side, `fromWire` on the other.
 *
 * Threading: either side.
 */
import { ShaleError } from "@shale/base";
import type { LoopSettings } from "./publish-loop.js";

/** What the worker starts with (its workerData). */
export interface PublisherWorkerData {
  readonly servers: string | string[];
  /** The database's directory: its WALs are read from there. */
  readonly dir: string;
  /** The database's last sequence when the worker was started. */
  readonly lastSequence: number;
  readonly settings: LoopSettings;
}

/** From the database's thread: look at the WALs now, or stop. */
export type ToWorker = { readonly type: "kick" } | { readonly type: "close" };

export interface WireError {
  readonly name: string;
  readonly message: string;
  readonly code: string | undefined;
  readonly file: string | undefined;
  readonly offset: number | undefined;
}

/** From the worker. */
export type FromWorker =
  | { readonly type: "ready" }
  | { readonly type: "stored"; readonly sequence: number }
  | { readonly type: "failed"; readonly error: WireError }
  | { readonly type: "closed" };

export function toWire(e: unknown): WireError {
  const error = e instanceof Error ? e : new Error(String(e));
  const shale = ShaleError.isInstance(error) ? error : undefined;
  return {
    name: error.name,
    message: error.message,
    code: shale?.code,
    file: shale?.file,
    offset: shale?.offset,
  };
}

/** The error again: a ShaleError with its code, file and offset, else an Error. */
export function fromWire(w: WireError): Error {
  if (w.code === undefined) {
    const e = new Error(w.message);
    e.name = w.name;
    return e;
  }
  const options = {
    ...(w.file === undefined ? {} : { file: w.file }),
    ...(w.offset === undefined ? {} : { offset: w.offset }),
  };
  const e = new ShaleError(w.code as ShaleError["code"], "", options);
  e.message = w.message; // as the worker had it (code prefix and place included)
  return e;
}
