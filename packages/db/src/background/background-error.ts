/**
 * The background error: the one error that turned a database read-only (a failed flush,
 * compaction or MANIFEST write/sync). It is made once, from the job's error, and then every
 * refused call (writes, `flush`, `compactRange`, `waitForCompactions`) and `close` report
 * that same object, so a caller always sees what caused the failure (RocksDB's bg_error).
 *
 * It keeps the cause's code (an I/O fault stays `IOError`; damage found by a compaction
 * stays `Corruption`), file and offset; the cause itself is `cause`. An error that is not a
 * ShaleError (a user's merge operator throwing in a compaction) becomes an IOError.
 */
import { ErrorCode, ShaleError, type ShaleErrorOptions } from "@shale/base";

const PREFIX = "a background job failed; the database is read-only until reopened";

/** The background error made from a job's `error`. */
export function backgroundError(error: Error): ShaleError {
  const options: ShaleErrorOptions = { cause: error };
  if (!ShaleError.isInstance(error)) {
    return new ShaleError(ErrorCode.IOError, `${PREFIX}: ${error.message}`, options);
  }
  if (error.file !== undefined) options.file = error.file;
  if (error.offset !== undefined) options.offset = error.offset;
  // The cause's text without its "<code>: " prefix and "(file @ offset)" suffix (the new
  // error adds both again).
  let text = error.message;
  if (text.startsWith(`${error.code}: `)) text = text.slice(error.code.length + 2);
  const where =
    error.file !== undefined
      ? ` (${error.file}${error.offset !== undefined ? ` @ ${error.offset}` : ""})`
      : error.offset !== undefined
        ? ` (@ ${error.offset})`
        : "";
  if (where !== "" && text.endsWith(where)) text = text.slice(0, -where.length);
  return new ShaleError(error.code, `${PREFIX}: ${text}`, options);
}
