/**
 * A minimal tar (POSIX ustar) writer and reader for the notes app's export: the database's
 * files in one download, which `tar -xf` (or `readTar` below) unpacks into a directory that
 * `open()` opens in Node.
 *
 * Layout: per file a 512-byte header (name, octal size, checksum, type '0', "ustar\0" "00"),
 * its bytes padded to a multiple of 512; then two zero blocks. Names up to 100 bytes.
 */
const BLOCK = 512;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function field(header: Uint8Array, offset: number, width: number, text: string): void {
  header.set(encoder.encode(text).subarray(0, width), offset);
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, "0")}\0`;
}

/** The files as one tar archive. */
export function writeTar(
  files: readonly { name: string; bytes: Uint8Array }[],
): Uint8Array<ArrayBuffer> {
  let total = 2 * BLOCK;
  for (const f of files) total += BLOCK + Math.ceil(f.bytes.length / BLOCK) * BLOCK;
  const out = new Uint8Array(total);
  let at = 0;
  for (const f of files) {
    if (encoder.encode(f.name).length > 100) throw new RangeError(`tar: name too long: ${f.name}`);
    const header = out.subarray(at, at + BLOCK);
    field(header, 0, 100, f.name);
    field(header, 100, 8, octal(0o644, 8));
    field(header, 108, 8, octal(0, 8));
    field(header, 116, 8, octal(0, 8));
    field(header, 124, 12, octal(f.bytes.length, 12));
    field(header, 136, 12, octal(Math.floor(Date.now() / 1000), 12));
    field(header, 148, 8, "        "); // the checksum counts its own field as spaces
    field(header, 156, 1, "0");
    field(header, 257, 8, "ustar\u000000");
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += header[i]!;
    field(header, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
    out.set(f.bytes, at + BLOCK);
    at += BLOCK + Math.ceil(f.bytes.length / BLOCK) * BLOCK;
  }
  return out;
}

/** The files of a tar archive written by `writeTar` (regular files only). */
export function readTar(archive: Uint8Array): { name: string; bytes: Uint8Array }[] {
  const files: { name: string; bytes: Uint8Array }[] = [];
  for (let at = 0; at + BLOCK <= archive.length; ) {
    const header = archive.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break;
    const text = (offset: number, width: number): string =>
      decoder.decode(header.subarray(offset, offset + width)).replace(/\0.*$/s, "");
    const size = Number.parseInt(text(124, 12).trim(), 8);
    if (!Number.isInteger(size) || size < 0) throw new RangeError(`tar: bad size at ${at}`);
    files.push({ name: text(0, 100), bytes: archive.slice(at + BLOCK, at + BLOCK + size) });
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return files;
}
