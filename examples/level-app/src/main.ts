/**
 * A reading-list app on @shale/level: the Level API (abstract-level 3) on shale's engine.
 *
 * One sublevel per kind of record, each with its own encodings:
 *   books      key: ISBN                 value: { title, author, pages }   (json)
 *   reads      key: "<reader>!<ISBN>"    value: { finished: "YYYY-MM-DD" } (msgpack)
 *   counters   key: "pages:<reader>"     value: a decimal string           (utf8)
 *   log/audit  (a sublevel of a sublevel) key: a zero-padded number, value: utf8 text
 * Writes that belong together go in one atomic batch across sublevels; a reader's reads are
 * one key range ("<reader>!" up to "<reader>\"", '"' being the byte after '!').
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ShaleLevel } from "@shale/level";

interface Book {
  title: string;
  author: string;
  pages: number;
}
interface Read {
  finished: string;
}

const dir = mkdtempSync(join(tmpdir(), "level-app-"));
const db = new ShaleLevel<string, string>(dir);
const books = db.sublevel<string, Book>("books", { valueEncoding: "json" });
const reads = db.sublevel<string, Read>("reads", { valueEncoding: "msgpack" });
const counters = db.sublevel<string, string>("counters", { valueEncoding: "utf8" });
const audit = db.sublevel("log").sublevel<string, string>("audit", { valueEncoding: "utf8" });
const readsOf = (reader: string) => ({ gte: `${reader}!`, lt: `${reader}"` });
let events = 0;
const log = (text: string) => audit.put(String(++events).padStart(6, "0"), text);

const catalogue: [string, Book][] = [
  ["9780262510875", { title: "Structure and Interpretation", author: "Abelson", pages: 657 }],
  ["9780201633610", { title: "Design Patterns", author: "Gamma", pages: 395 }],
  ["9780131103627", { title: "The C Programming Language", author: "Kernighan", pages: 272 }],
  ["9781449373320", { title: "Designing Data-Intensive Apps", author: "Kleppmann", pages: 616 }],
];
await books.batch(catalogue.map(([key, value]) => ({ type: "put" as const, key, value })));

/** Records that `reader` finished `isbn`: the read and the page counter change together. */
async function finish(reader: string, isbn: string, date: string): Promise<void> {
  const book = await books.get(isbn);
  if (book === undefined) throw new Error(`no book ${isbn}`);
  const pages = Number((await counters.get(`pages:${reader}`)) ?? "0") + book.pages;
  await db
    .batch()
    .put<string, Read>(`${reader}!${isbn}`, { finished: date }, { sublevel: reads })
    .put(`pages:${reader}`, String(pages), { sublevel: counters })
    .write();
  await log(`${reader} finished ${isbn}`);
}

await finish("ada", "9780262510875", "2026-01-12");
await finish("ada", "9781449373320", "2026-03-02");
await finish("alan", "9780131103627", "2026-02-20");
const beforeRetraction = db.snapshot();
await finish("alan", "9780201633610", "2026-04-01");

for await (const [key, read] of reads.iterator(readsOf("ada"))) {
  const book = await books.get(key.slice("ada!".length));
  console.log(`ada finished ${book!.title} on ${read.finished}`);
}
const pages = await counters.values({ gte: "pages:", lt: "pages;" }).all();
console.log("pages read (ada, alan):", pages.join(", "));
console.log(
  "ISBNs from 9780200 to 9780300:",
  await books.keys({ gte: "9780200", lt: "9780300" }).all(),
);
console.log(
  "last book by ISBN:",
  (await books.values({ reverse: true, limit: 1 }).all())[0]!.title,
);

// alan retracts everything: one range deletion (a single range tombstone in shale).
await reads.clear(readsOf("alan"));
await counters.del("pages:alan");
await log("alan retracted his reads");
console.log("alan's reads now:", await reads.keys(readsOf("alan")).all());
console.log(
  "at the snapshot: ",
  await reads.keys({ ...readsOf("alan"), snapshot: beforeRetraction }).all(),
);
await beforeRetraction.close();
console.log("audit log:", (await audit.values().all()).join("; "));
console.log("keys in the store:", (await db.keys().all()).length);
await db.close();
rmSync(dir, { recursive: true, force: true });
