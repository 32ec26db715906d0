/**
 * Two-phase commit's WAL records (RocksDB's WriteCommitted policy) and their replay; the
 * transactions that write them are txn/transaction.ts, the WAL retention txn/two-phase.ts.
 *
 * WAL records, in RocksDB's format (markers: write-batch.ts BatchMarker):
 *
 * ```
 *   prepare   seq S ‖ count n ‖ 0x09 BeginPrepare ‖ op{n} ‖ 0x0A EndPrepare ‖ varstring name
 *             (S = last seq + 1, not consumed: the ops are not in any memtable yet)
 *   commit    seq C ‖ count 0 ‖ 0x0B Commit ‖ varstring name
 *             (the prepared ops are applied at C, C+1, ...: seqs consumed now)
 *   rollback  seq R ‖ count 0 ‖ 0x0C Rollback ‖ varstring name
 * ```
 *
 * Example: prepare of put("k", "v") named "t1" at last seq 4 →
 * `05 00 00 00 00 00 00 00 | 01 00 00 00 | 09 | 01 01 6b 01 76 | 0a 02 74 31`.
 *
 * Recovery (`PreparedReplay`, open/recovery.ts): the ops between BeginPrepare and EndPrepare
 * are kept by name, not inserted; a Commit inserts them at the commit record's seq (after
 * the ops the record itself holds); a Rollback drops them. What is left at the end are the
 * prepared transactions; the open writes their prepare records again into its new WAL, so
 * the WALs they came from may go.
 */
import { ByteWriter, type ValueKind } from "@shale/base";
import type { MemTable } from "@shale/memtable";
import { BATCH_HEADER_SIZE, BatchMarker, WriteBatch } from "./write-batch.js";
import type { FamilyInserter } from "./write-path.js";

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

/** The longest transaction name (RocksDB's limit: 512 bytes). */
export const MAX_NAME_BYTES = 512;

/**
 * The prepare record of `batch` (sealed or not) named `name`, stamped with seq `seq`: the
 * batch's operations between BeginPrepare and EndPrepare.
 */
export function prepareRecord(batch: WriteBatch, name: string, seq: number): Uint8Array {
  const rep = batch.seal(seq);
  const xid = textEncoder.encode(name);
  const w = new ByteWriter(rep.length + xid.length + 8);
  w.bytes(rep.subarray(0, BATCH_HEADER_SIZE));
  w.byte(BatchMarker.BeginPrepare);
  w.bytes(rep.subarray(BATCH_HEADER_SIZE));
  w.byte(BatchMarker.EndPrepare).lengthPrefixed(xid);
  return w.finish().slice();
}

/** A Commit or Rollback record for `name`, stamped with seq `seq`, holding no operation. */
export function markerRecord(type: number, name: string, seq: number): Uint8Array {
  const xid = textEncoder.encode(name);
  const w = new ByteWriter(BATCH_HEADER_SIZE + xid.length + 8);
  w.fixed64(seq).fixed32(0).byte(type).lengthPrefixed(xid);
  return w.finish().slice();
}

/** A prepared transaction recovery found: its name, operations and the WAL it was in. */
export interface RecoveredPrepared {
  readonly name: string;
  readonly batch: WriteBatch;
  readonly logNumber: number;
}

/**
 * The WAL replay handler of a TransactionDB: plain operations go to `inserter`; prepared
 * ones are kept by name until their Commit (inserted then) or Rollback (dropped).
 */
export class PreparedReplay {
  /** The prepared transactions not decided yet, by name. */
  readonly pending = new Map<string, RecoveredPrepared>();
  /** The newest seq a commit used (recovery's last sequence is at least this). */
  maxSeq = 0;
  /** The WAL being replayed. */
  logNumber = 0;
  /** The seq stamped on the record being replayed. */
  recordSeq = 0;
  private preparing: WriteBatch | undefined = undefined;
  /** Per memtable a commit inserted into: the oldest WAL of a prepare it holds ops of. */
  readonly memRefs = new Map<MemTable, number>();
  private readonly inserter: FamilyInserter;

  constructor(inserter: FamilyInserter) {
    this.inserter = inserter;
  }

  apply(kind: ValueKind, key: Uint8Array, value: Uint8Array, index: number, family: number): void {
    if (this.preparing !== undefined) this.preparing.addIn(family, kind, key, value);
    else this.inserter.apply(kind, key, value, index, family);
  }

  marker(type: number, xid: Uint8Array | undefined, index: number): void {
    switch (type) {
      case BatchMarker.BeginPrepare:
        this.preparing = new WriteBatch();
        return;
      case BatchMarker.EndPrepare: {
        const batch = this.preparing ?? new WriteBatch();
        this.preparing = undefined;
        const name = textDecoder.decode(xid);
        this.pending.set(name, { name, batch, logNumber: this.logNumber });
        return;
      }
      case BatchMarker.Commit: {
        const name = textDecoder.decode(xid);
        const prepared = this.pending.get(name);
        // A prepare in a WAL not replayed: its commit's ops were flushed before.
        if (prepared === undefined) return;
        this.pending.delete(name);
        const seq = this.recordSeq + index;
        const inserter = this.inserter;
        const saved = inserter.seq;
        inserter.seq = seq;
        WriteBatch.iterate(prepared.batch.seal(seq), inserter, undefined, 0, true);
        inserter.seq = saved;
        const last = seq + prepared.batch.count - 1;
        if (last > this.maxSeq) this.maxSeq = last;
        for (const mem of inserter.mems) {
          if (mem === undefined) continue;
          const ref = this.memRefs.get(mem);
          if (ref === undefined || prepared.logNumber < ref)
            this.memRefs.set(mem, prepared.logNumber);
        }
        return;
      }
      case BatchMarker.Rollback:
        this.pending.delete(textDecoder.decode(xid));
        return;
    }
  }
}
