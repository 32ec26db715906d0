// Worker thread for reader/*.test.ts: opens a Reader of the database whose handle it was
// given (workerData.handle) with the BUILT @shale/db, then answers commands posted to it
// ({ id, op, ... } -> { id, ok, result } or { id, ok: false, code, type, message }).
// op "model" runs checks in a loop until the shared stop flag is set (see the test).
import { parentPort, workerData } from "node:worker_threads";
import { openReader } from "@shale/db";

const text = (v) => (v === undefined ? null : Buffer.from(v).toString());
const iterators = new Map();
const snapshots = new Map();
let nextId = 1;
let reader;

function scan(it) {
  const out = [];
  for (const [k, v] of it) out.push([text(k), text(v)]);
  return out;
}

/** The model loop: consistent scans at a snapshot, and single gets, against the ack index. */
function model({ ack, stop, keys }) {
  const acked = new Int32Array(ack);
  const stopped = new Int32Array(stop);
  const checks = [];
  const gets = [];
  let round = 0;
  while (Atomics.load(stopped, 0) === 0) {
    round++;
    const a0 = Atomics.load(acked, 0);
    const s = reader.snapshot();
    const entries = scan(reader.iterator({ snapshot: s }));
    const back = scan(reader.iterator({ snapshot: s, reverse: true }));
    const probe = keys[round % keys.length];
    const viaGet = text(reader.get(probe, { snapshot: s }));
    const many = reader.getMany([probe, keys[0]], { snapshot: s }).map(text);
    const a1 = Atomics.load(acked, 0);
    checks.push({ a0, a1, seq: s.seq, entries, back, probe, viaGet, many });
    s.release();
    const b0 = Atomics.load(acked, 0);
    const key = keys[(round * 7) % keys.length];
    const value = text(reader.get(key));
    const b1 = Atomics.load(acked, 0);
    gets.push({ b0, b1, key, value });
  }
  return { checks, gets };
}

function run(m) {
  switch (m.op) {
    case "get":
      return m.keys.map((k) => text(reader.get(k)));
    case "getMany":
      return reader.getMany(m.keys).map(text);
    case "scan":
      return scan(reader.iterator(m.options ?? {}));
    case "sequence":
      return reader.sequence;
    case "snapshot": {
      const id = nextId++;
      snapshots.set(id, reader.snapshot());
      return { id, seq: snapshots.get(id).seq };
    }
    case "scanAt":
      return scan(reader.iterator({ ...(m.options ?? {}), snapshot: snapshots.get(m.snapshot) }));
    case "getAt":
      return m.keys.map((k) => text(reader.get(k, { snapshot: snapshots.get(m.snapshot) })));
    case "release":
      snapshots.get(m.snapshot).release();
      return null;
    case "iterOpen": {
      const id = nextId++;
      const it = reader.iterator(m.options ?? {});
      if (m.seek !== undefined) it.seek(m.seek);
      else if (m.options?.reverse) it.seekToLast();
      else it.seekToFirst();
      iterators.set(id, it);
      return id;
    }
    case "iterTake": {
      const it = iterators.get(m.iterator);
      const out = [];
      for (let i = 0; i < m.count && it.valid(); i++) {
        out.push([text(it.key()), text(it.value())]);
        if (m.reverse) it.prev();
        else it.next();
      }
      return out;
    }
    case "iterClose":
      iterators.get(m.iterator).close();
      iterators.delete(m.iterator);
      return null;
    case "model":
      return model(m);
    case "openAgain":
      return openReader(workerData.handle).then(
        () => "opened",
        (e) => ({ code: e.code, type: e.constructor.name }),
      );
    case "close":
      for (const it of iterators.values()) it.close();
      return reader.close().then(() => null);
    default:
      throw new Error(`unknown op ${m.op}`);
  }
}

parentPort.on("message", async (m) => {
  try {
    const result = await run(m);
    parentPort.postMessage({ id: m.id, ok: true, result });
  } catch (e) {
    parentPort.postMessage({
      id: m.id,
      ok: false,
      code: e?.code,
      type: e?.constructor?.name,
      message: String(e?.message ?? e),
    });
  }
});

try {
  reader = await openReader(workerData.handle, workerData.options);
  parentPort.postMessage({ id: 0, ok: true, result: "ready" });
} catch (e) {
  parentPort.postMessage({ id: 0, ok: false, code: e?.code, message: String(e?.message ?? e) });
}
