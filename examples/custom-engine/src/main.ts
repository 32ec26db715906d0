/**
 * The custom engine at work, then a power cut: what was synced survives the crash, an
 * unsynced write is lost, and the reopened engine recovers the rest from its WAL.
 */
import { FaultInjectionFileSystem, MemoryFileSystem } from "@shale/base";
import { Engine } from "./engine.js";

const enc = new TextEncoder();
const dec = new TextDecoder();
const show = (engine: Engine) =>
  [...engine.scan()].map(([k, v]) => `${dec.decode(k)}=${dec.decode(v)}`).join(" ");

const fs = new FaultInjectionFileSystem(new MemoryFileSystem());
let db = Engine.open(fs, "/db");
for (const fruit of ["apple", "banana", "cherry", "date", "elderberry", "fig"]) {
  db.put(enc.encode(fruit), enc.encode(String(fruit.length)));
}
db.flush(); // to 000001.sst, with a Bloom filter
db.delete(enc.encode("banana"));
db.deleteRange(enc.encode("c"), enc.encode("e")); // cherry and date
db.put(enc.encode("grape"), enc.encode("5"));
console.log("before the crash:", show(db));
console.log("get fig:", dec.decode(db.get(enc.encode("fig"))));
console.log(
  "scan [d, g):",
  [...db.scan(enc.encode("d"), enc.encode("g"))].map(([k]) => dec.decode(k)).join(" "),
);
db.put(enc.encode("kiwi"), enc.encode("4"), false); // not synced

fs.dropUnsyncedData(); // power cut: unsynced bytes are gone, open handles die
db = Engine.open(fs, "/db"); // tables + WAL replay
console.log("after the crash: ", show(db));
console.log(
  "get apple, twice:",
  dec.decode(db.get(enc.encode("apple"))),
  dec.decode(db.get(enc.encode("apple"))),
);
console.log("kiwi (never synced):", db.get(enc.encode("kiwi")) ?? "lost");
console.log("files:", fs.list("/db").join(" "));
const { hits, misses, entries } = db.cache.stats();
console.log(`block cache: ${hits} hits, ${misses} misses, ${entries} blocks`);
db.close();
