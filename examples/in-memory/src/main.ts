/** The in-memory store at work: writes, snapshots, a counter kept by merges, scans. */
import { SortedStore } from "./store.js";

const enc = new TextEncoder();
const dec = new TextDecoder();
// Counters as decimal strings: the operands are added to the base value.
const add = {
  name: "add",
  fullMerge: (_key: Uint8Array, base: Uint8Array | undefined, operands: readonly Uint8Array[]) =>
    enc.encode(
      String(
        operands.reduce(
          (n, o) => n + Number(dec.decode(o)),
          Number(dec.decode(base ?? enc.encode("0"))),
        ),
      ),
    ),
};
const store = new SortedStore(add, 64 * 1024);
for (let i = 0; i < 2000; i++)
  store.put(enc.encode(`user:${String(i).padStart(4, "0")}`), enc.encode(`name ${i}`));
const before = store.snapshot();
store.deleteRange(enc.encode("user:0100"), enc.encode("user:1900"));
store.delete(enc.encode("user:0005"));
for (let i = 0; i < 3; i++) store.merge(enc.encode("visits"), enc.encode("10"));

const count = (it: ReturnType<SortedStore["scan"]>) => [...it].length;
console.log("memtables:", store.memtables);
console.log("users now:", count(store.scan({ upperBound: enc.encode("user;") })));
console.log(
  "users at the snapshot:",
  count(store.scan({ snapshot: before, upperBound: enc.encode("user;") })),
);
console.log("get user:0005:", store.get(enc.encode("user:0005")) ?? "deleted");
console.log(
  "get user:0005 at the snapshot:",
  dec.decode(store.get(enc.encode("user:0005"), before)),
);
console.log("visits:", dec.decode(store.get(enc.encode("visits"))));
const it = store.scan({ lowerBound: enc.encode("user:1995") });
const last: string[] = [];
for (it.seekToLast(); it.valid() && last.length < 3; it.prev())
  last.push(`${dec.decode(it.key())}=${dec.decode(it.value())}`);
it.close();
console.log("last three, backwards:", last.join(", "));
