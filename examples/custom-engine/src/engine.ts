/**
 * A small LSM engine assembled from shale's parts, without @shale/db: writes go to a WAL
 * (@shale/wal) and a memtable (@shale/memtable); `flush()` writes the memtable to a table
 * (@shale/sstable) with a Bloom filter (@shale/bloom), read through a shared block cache
 * (@shale/block-cache); reads merge the memtable and the tables (@shale/merging-iterator)
 * with range tombstones (@shale/range-tombstones) applied. `Engine.open` recovers: it opens
 * the tables listed in TABLES and replays the WAL into a new memtable.
 *
 * Files: TABLES (JSON: table numbers newest first, the last seq they hold), NNNNNN.sst,
 * wal.log (records: kind ‖ fixed64 seq ‖ key ‖ value, length-prefixed).
 */
import {
  ByteWriter,
  bytewiseComparator,
  Decoder,
  type FileSystem,
  InternalKeyComparator,
  LookupResult,
  LookupState,
  ValueKind,
} from "@shale/base";
import { BloomFilterPolicy } from "@shale/bloom";
import { MemTable } from "@shale/memtable";
import { newMergingIterator, UserKeyIterator } from "@shale/merging-iterator";
import type { FragmentedRangeTombstoneList } from "@shale/range-tombstones";
import { type BlockCache, flushMemTable, newBlockCache, TableReader } from "@shale/sstable";
import { LogReader, LogWriter, WalRecoveryMode } from "@shale/wal";

interface Manifest {
  tables: number[]; // newest first
  lastSeq: number;
}

export class Engine {
  private mem = new MemTable();
  private wal: LogWriter | undefined;
  private readonly tables: TableReader[] = []; // newest first
  /** The block cache shared by the tables. */
  readonly cache: BlockCache = newBlockCache(8 << 20);
  private readonly filterPolicy = new BloomFilterPolicy(10);
  private readonly result = new LookupResult();
  private readonly icmp = new InternalKeyComparator(bytewiseComparator);
  private manifest: Manifest = { tables: [], lastSeq: 0 };
  private seq = 0;

  private constructor(
    private readonly fs: FileSystem,
    private readonly dir: string,
  ) {}

  /** Opens (or creates) the engine in `dir`, recovering the tables and the WAL. */
  static open(fs: FileSystem, dir: string): Engine {
    const engine = new Engine(fs, dir);
    fs.mkdir(dir);
    if (fs.exists(engine.path("TABLES"))) {
      engine.manifest = JSON.parse(new TextDecoder().decode(fs.readFile(engine.path("TABLES"))));
    }
    for (const n of engine.manifest.tables) engine.tables.push(engine.openTable(n));
    engine.seq = engine.manifest.lastSeq;
    engine.replayWal();
    return engine;
  }

  put(key: Uint8Array, value: Uint8Array, sync = true): void {
    this.write(ValueKind.Value, key, value, sync);
  }

  delete(key: Uint8Array, sync = true): void {
    this.write(ValueKind.Deletion, key, new Uint8Array(0), sync);
  }

  /** Deletes every key in [start, end). */
  deleteRange(start: Uint8Array, end: Uint8Array, sync = true): void {
    this.write(ValueKind.RangeDeletion, start, end, sync);
  }

  /** The newest value of `key`, or undefined: the memtable first, then the tables, newest first. */
  get(key: Uint8Array): Uint8Array | undefined {
    const r = this.result;
    r.reset();
    this.mem.get(key, this.seq, r);
    for (let i = 0; i < this.tables.length && !r.done; i++) this.tables[i]!.get(key, this.seq, r);
    return r.state === LookupState.Found ? r.value!.slice() : undefined;
  }

  /** Live entries with start <= key < end, in order, as copies. */
  *scan(start?: Uint8Array, end?: Uint8Array): Generator<[Uint8Array, Uint8Array]> {
    const sources = [this.mem.newIterator(), ...this.tables.map((t) => t.newIterator())];
    const tombstones: FragmentedRangeTombstoneList[] = [this.mem.fragmentedRangeTombstones()];
    for (const t of this.tables) tombstones.push(t.rangeTombstones());
    const it = new UserKeyIterator(
      newMergingIterator(sources, (a, b) => this.icmp.compare(a, b)),
      {
        snapshotSeq: this.seq,
        rangeTombstones: tombstones,
        ...(start !== undefined && { lowerBound: start }),
        ...(end !== undefined && { upperBound: end }),
      },
    );
    yield* it;
  }

  /** Writes the memtable to a new table, records it in TABLES, and starts an empty WAL. */
  flush(): void {
    if (this.mem.numEntries + this.mem.numRangeTombstones === 0) return;
    const number = (this.manifest.tables[0] ?? 0) + 1;
    const name = this.path(`${String(number).padStart(6, "0")}.sst`);
    flushMemTable(this.mem, this.fs.openWritable(name), { filterPolicy: this.filterPolicy });
    this.fs.syncDir(this.dir); // the new file's name is durable before TABLES names it
    this.manifest = { tables: [number, ...this.manifest.tables], lastSeq: this.seq };
    const tmp = this.path("TABLES.tmp");
    this.fs.writeFile(tmp, new TextEncoder().encode(JSON.stringify(this.manifest)), { sync: true });
    this.fs.rename(tmp, this.path("TABLES"));
    this.fs.syncDir(this.dir);
    this.tables.unshift(this.openTable(number));
    this.mem = new MemTable();
    this.wal?.close();
    this.newWal();
  }

  close(): void {
    this.wal?.close();
    for (const t of this.tables) t.close();
  }

  private write(kind: ValueKind, key: Uint8Array, value: Uint8Array, sync: boolean): void {
    const seq = ++this.seq;
    const record = new ByteWriter()
      .byte(kind)
      .fixed64(seq)
      .lengthPrefixed(key)
      .lengthPrefixed(value);
    this.wal!.addRecord(record.finish());
    if (sync) this.wal!.sync();
    else this.wal!.flush();
    this.mem.add(seq, kind, key, value);
  }

  /** Replays wal.log (a torn tail is dropped: point-in-time recovery), then starts a new one. */
  private replayWal(): void {
    const wal = this.path("wal.log");
    if (this.fs.exists(wal)) {
      const file = this.fs.openSequential(wal);
      const reader = new LogReader(file, { mode: WalRecoveryMode.PointInTime, fileName: wal });
      for (let rec = reader.readRecord(); rec !== undefined; rec = reader.readRecord()) {
        const d = new Decoder(rec);
        const kind = d.readByte() as ValueKind;
        const seq = d.readFixed64();
        if (seq <= this.manifest.lastSeq) continue; // already in a table
        this.mem.add(seq, kind, d.readLengthPrefixed(), d.readLengthPrefixed());
        this.seq = Math.max(this.seq, seq);
      }
      file.close();
      // What was replayed goes to a table before the old WAL is replaced (flush does both).
      if (this.mem.numEntries + this.mem.numRangeTombstones > 0) {
        this.flush();
        return;
      }
    }
    this.newWal();
  }

  private newWal(): void {
    this.wal = new LogWriter(this.fs.openWritable(this.path("wal.log")));
    this.wal.sync();
    this.fs.syncDir(this.dir);
  }

  private openTable(number: number): TableReader {
    const name = this.path(`${String(number).padStart(6, "0")}.sst`);
    const file = this.fs.openRandomAccess(name);
    return TableReader.open(file, {
      fileName: name,
      blockCache: this.cache,
      filterPolicy: this.filterPolicy,
    });
  }

  private path(name: string): string {
    return `${this.dir}/${name}`;
  }
}
