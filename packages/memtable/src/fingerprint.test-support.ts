/**
 * Test support (not a test, not built): everything observable about a memtable as strings,
 * so two memtables — or one seen from two threads — can be compared with one `toEqual`.
 * Imported by the worker in memtable-shared.test.ts, so it must not import vitest.
 */
import {
  bytewiseComparator,
  LookupResult,
  MAX_SEQ,
  reverseBytewiseComparator,
  toHex,
  ValueKind,
} from "@shale/base";
import { MemTable, type SharedMemTableData } from "./index.js";

export interface Fingerprint {
  scan: string[];
  gets: string[];
  tombstones: string[];
  counts: number[];
}

/** Everything observable about a memtable, for comparing two of them. */
export function fingerprint(mem: MemTable, probes: Uint8Array[]): Fingerprint {
  const scan: string[] = [];
  const it = mem.newIterator();
  for (it.seekToFirst(); it.valid(); it.next())
    scan.push(`${toHex(it.key())}=${toHex(it.value())}`);
  for (it.seekToLast(); it.valid() && scan.length < 2000; it.prev()) scan.push(toHex(it.key()));
  const gets: string[] = [];
  const r = new LookupResult();
  for (const probe of probes) {
    for (const snap of [MAX_SEQ, 50, 200]) {
      r.reset();
      mem.get(probe, snap, r);
      gets.push(
        `${toHex(probe)}@${snap}: ${r.state} ${r.seq} ${r.value ? toHex(r.value) : "-"} ` +
          `[${r.operands.map(toHex).join(",")}] ${r.maxCoveringSeq}`,
      );
    }
  }
  const tombstones = mem.rangeTombstones().map((t) => `${toHex(t.start)}-${toHex(t.end)}@${t.seq}`);
  const counts = [
    mem.numEntries,
    mem.numRangeTombstones,
    mem.firstSeq,
    mem.largestSeq,
    mem.approximateMemoryUsage(),
  ];
  return { scan, gets, tombstones, counts };
}

export interface SharedReadReply {
  fingerprint: Fingerprint;
  /** The error code of an add on the reopened (sealed) memtable. */
  addError: string;
  sealed: boolean;
}

/** What the worker does: reopen `data` and describe it at the hex-encoded probes. */
export function readShared(
  data: SharedMemTableData,
  probesHex: string[],
  reverse: boolean,
): SharedReadReply {
  const comparator = reverse ? reverseBytewiseComparator : bytewiseComparator;
  const mem = MemTable.fromShared(data, { comparator });
  const probes = probesHex.map((h) => Uint8Array.from(Buffer.from(h, "hex")));
  let addError = "";
  try {
    mem.add(1000, ValueKind.Value, probes[0]!, probes[0]!);
  } catch (e) {
    addError = (e as { code: string }).code;
  }
  return { fingerprint: fingerprint(mem, probes), addError, sealed: mem.isSealed };
}
