/**
 * Keys written as text in data-driven files — the inverses of `formatKey` and
 * `formatInternalKey` (`a#12,SET`). No vitest.
 *
 * - A user key is its printable bytes, `\xNN` for any other byte; `_` alone is the empty key.
 * - An internal key is `user#seq,KIND` (`KIND` as `kindName` prints it: SET, DEL, MERGE,
 *   SINGLEDEL, RANGEDEL; default SET); `seq` may be `max` (MAX_SEQ).
 */
import { formatKey } from "../bytes.js";
import { formatInternalKey, MAX_SEQ, makeInternalKey, ValueKind } from "../internal-key.js";

const KINDS: Record<string, ValueKind> = {
  SET: ValueKind.Value,
  DEL: ValueKind.Deletion,
  MERGE: ValueKind.Merge,
  SINGLEDEL: ValueKind.SingleDeletion,
  RANGEDEL: ValueKind.RangeDeletion,
  BLOB_INDEX: ValueKind.BlobIndex,
};

/** The kind named `name` (SET, DEL, ...); TypeError for another name. */
export function parseKindName(name: string): ValueKind {
  const kind = KINDS[name];
  if (kind === undefined) throw new TypeError(`unknown kind ${JSON.stringify(name)}`);
  return kind;
}

/** The bytes of a user key written as text (`\xNN` escapes; `_` is the empty key). */
export function parseKeyText(text: string): Uint8Array {
  if (text === "_") return new Uint8Array(0);
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\" && text[i + 1] === "x") {
      out.push(Number.parseInt(text.slice(i + 2, i + 4), 16));
      i += 3;
    } else {
      const c = text.charCodeAt(i);
      if (c > 0x7f)
        throw new TypeError(`key text ${JSON.stringify(text)}: use \\xNN for byte ${c}`);
      out.push(c);
    }
  }
  return Uint8Array.from(out);
}

/** `a#12,SET` -> the internal key (kind SET when `,KIND` is left out; seq `max` = MAX_SEQ). */
export function parseInternalKeyText(text: string): Uint8Array {
  const hash = text.lastIndexOf("#");
  if (hash < 0) throw new TypeError(`internal key ${JSON.stringify(text)}: no "#seq"`);
  const [seqText, kindText = "SET"] = text.slice(hash + 1).split(",") as [string, string?];
  const seq = seqText === "max" ? MAX_SEQ : Number(seqText);
  if (!Number.isSafeInteger(seq) || seq < 0) {
    throw new TypeError(`internal key ${JSON.stringify(text)}: bad seq ${seqText}`);
  }
  return makeInternalKey(parseKeyText(text.slice(0, hash)), seq, parseKindName(kindText));
}

/** `formatKey`, with the empty key as `_` (what `parseKeyText` reads back). */
export function keyText(key: Uint8Array): string {
  return key.length === 0 ? "_" : formatKey(key);
}

/** `formatInternalKey` with `max` for MAX_SEQ (what `parseInternalKeyText` reads back). */
export function internalKeyText(ikey: Uint8Array): string {
  return formatInternalKey(ikey).replace(`#${MAX_SEQ},`, "#max,");
}

const decoder = new TextDecoder();

/** Bytes as UTF-8 text (values in traces). */
export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}
