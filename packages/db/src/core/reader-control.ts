/**
 * The control block a database shares with its worker readers (reader/reader.ts): one
 * SharedArrayBuffer of Int32 words, written by the database's thread and read by every
 * reader with `Atomics`.
 *
 * ```
 * word  name        written by   meaning
 *   0   magic       handle       0x5348524b ("SHRK"): this is a reader control block
 *   1   version     handle       CONTROL_VERSION
 *   2   changes     writer       +1 after every acknowledged write (WAL record handed to
 *                                the OS, memtable inserted, lastSeq moved) and after every
 *                                installed MANIFEST edit (flush, compaction, ingestion);
 *                                wraps at 2^32 (compared for equality only)
 *   3   closed      writer       1 once the database began to close
 *   4   readers     readers      worker readers open now (+1 open, -1 close)
 * ```
 *
 * Memory ordering: `Atomics` operations are sequentially consistent. The writer bumps
 * `changes` only after the write's WAL record was handed to the OS (a completed write
 * system call) and, for a MANIFEST edit, after the edit was synced. A reader that loads a
 * value of `changes` and then reads the WAL and MANIFEST files therefore reads every byte
 * written before that bump: the bump happens-before the load, and the kernel's page cache
 * makes a completed write visible to every later read of the file, in any thread. A bump
 * the reader has not seen yet is not waited for: the write it stands for had not been
 * acknowledged when the read began.
 *
 * In memory only; never persisted.
 */
import { ShaleError } from "@shale/base";

/** Words of the control block (see the table above). */
export const ControlWord = {
  Magic: 0,
  Version: 1,
  Changes: 2,
  Closed: 3,
  Readers: 4,
} as const;

export const CONTROL_MAGIC = 0x5348524b;
/** Version of the control block's layout; bump on any change. */
export const CONTROL_VERSION = 1;
const CONTROL_WORDS = 8;

/** A new control block: magic and version set, nothing changed, open. */
export function newReaderControl(): Int32Array {
  const words = new Int32Array(new SharedArrayBuffer(CONTROL_WORDS * 4));
  words[ControlWord.Magic] = CONTROL_MAGIC;
  words[ControlWord.Version] = CONTROL_VERSION;
  return words;
}

/** The control block in `buffer`; TypeError / InvalidArgument when it is not one. */
export function readerControlOf(buffer: unknown): Int32Array {
  if (!(buffer instanceof SharedArrayBuffer))
    throw new TypeError("reader handle: control must be a SharedArrayBuffer");
  if (buffer.byteLength !== CONTROL_WORDS * 4)
    throw ShaleError.invalidArgument("reader handle: control block has the wrong size");
  const words = new Int32Array(buffer);
  if (Atomics.load(words, ControlWord.Magic) !== CONTROL_MAGIC)
    throw ShaleError.invalidArgument("reader handle: control block has no magic number");
  const version = Atomics.load(words, ControlWord.Version);
  if (version !== CONTROL_VERSION)
    throw ShaleError.invalidArgument(
      `reader handle: control block version ${version}; expected ${CONTROL_VERSION}`,
    );
  return words;
}

/** Writer: something readers must see was acknowledged. */
export function publishChange(control: Int32Array): void {
  Atomics.add(control, ControlWord.Changes, 1);
}

/**
 * Writer: the database began to close; readers' reads fail with Closed from now on. The
 * closed word is stored BEFORE `changes` moves: a reader reads the closed word only once it
 * sees `changes` move (reader/reader.ts `refresh`), so keep this order.
 */
export function publishClosed(control: Int32Array): void {
  Atomics.store(control, ControlWord.Closed, 1);
  Atomics.add(control, ControlWord.Changes, 1);
}

/** True once the writer began to close. */
export function isWriterClosed(control: Int32Array): boolean {
  return Atomics.load(control, ControlWord.Closed) !== 0;
}
