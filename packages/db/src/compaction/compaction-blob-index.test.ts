/**
 * Blob indexes in a compaction: a BlobIndex entry is a Value whose bytes are a reference, so
 * it is hidden, covered and kept exactly like one and written out unchanged; a merge onto one
 * reads the blob (through the `blobs` resolver) as its base.
 */
import {
  ArrayIterator,
  bytewiseComparator,
  formatInternalKey,
  InternalKeyComparator,
  makeInternalKey,
  ValueKind,
} from "@shale/base";
import { describe, expect, it } from "vitest";
import { encodeBlobIndex } from "../blob/blob-format.js";
import { stringAppendOperator } from "../core/merge-operator.js";
import { BottommostChecker } from "./bottommost.js";
import { CompactionIterator } from "./compaction-iterator.js";

const icmp = new InternalKeyComparator(bytewiseComparator);
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const blobIndex = (offset: number) =>
  encodeBlobIndex({ fileNumber: 7, offset, size: 4, compression: 0 });

function run(entries: [string, number, number, Uint8Array][], snapshots: number[] = []) {
  const keys = entries.map(([k, seq, kind]) => makeInternalKey(enc(k), seq, kind));
  const resolved: string[] = [];
  const it = new CompactionIterator(
    new ArrayIterator(
      keys,
      entries.map((e) => e[3]),
      (a, b) => icmp.compare(a, b),
    ),
    {
      icmp,
      snapshots,
      mergeOperator: stringAppendOperator(),
      tombstones: undefined,
      bottommost: new BottommostChecker(bytewiseComparator, []),
      blobs: {
        resolve(userKey, index) {
          resolved.push(`${dec(userKey)}@${index[2]}`);
          return enc("BLOB");
        },
      },
    },
  );
  const out: string[] = [];
  for (it.seekToFirst(); it.valid(); it.next())
    out.push(`${formatInternalKey(it.key())}=${Buffer.from(it.value()).toString("hex")}`);
  return { out, resolved };
}

describe("compaction of blob indexes", () => {
  it("keeps the newest blob index unchanged and drops hidden ones", () => {
    const { out, resolved } = run([
      ["a", 9, ValueKind.BlobIndex, blobIndex(63)],
      ["a", 5, ValueKind.BlobIndex, blobIndex(100)],
      ["b", 4, ValueKind.Deletion, new Uint8Array(0)],
      ["b", 3, ValueKind.BlobIndex, blobIndex(150)],
    ]);
    expect(out).toEqual([`a#9,BLOB_INDEX=${Buffer.from(blobIndex(63)).toString("hex")}`]);
    expect(resolved).toEqual([]); // nothing read: references are carried as they are
  });

  it("keeps blob indexes a snapshot still sees", () => {
    const { out } = run(
      [
        ["a", 9, ValueKind.Value, enc("new")],
        ["a", 5, ValueKind.BlobIndex, blobIndex(63)],
      ],
      [6],
    );
    expect(out.map((l) => l.split("=")[0])).toEqual(["a#9,SET", "a#5,BLOB_INDEX"]);
  });

  it("a merge onto a blob index reads the blob as its base", () => {
    const { out, resolved } = run([
      ["a", 9, ValueKind.Merge, enc("m")],
      ["a", 5, ValueKind.BlobIndex, blobIndex(63)],
    ]);
    expect(resolved).toEqual(["a@63"]);
    expect(out).toEqual([`a#9,SET=${Buffer.from("BLOB,m").toString("hex")}`]);
  });
});
