// Child process for secondary/multi-process.test.ts: a reader of the primary's database.
// Mode "secondary": one DB.openAsSecondary kept open, caught up before each check. Mode
// "readOnly": a fresh DB.open(dir, { readOnly: true }) per check. On stdin "check <b>" it
// verifies that every write of batches 0..b (all synced by the primary) is visible, and
// answers "ok <b>" or "fail <b> <what>"; on "stop" it closes and prints "closed <catch-ups>".
import { createInterface } from "node:readline";
import { DB } from "@shale/db";

const [dir, mode] = process.argv.slice(2);
const text = (v) => (v === undefined ? undefined : Buffer.from(v).toString());
const pad = "p".repeat(200);
let secondary = mode === "secondary" ? await DB.openAsSecondary(dir) : undefined;
let catchUps = 0;

function verify(db, b) {
  for (let x = 0; x <= b; x++) {
    for (let j = 0; j < 3; j++) {
      const got = text(db.get(`b${x}-k${j}`));
      const deleted = j === 0 && x + 50 <= b;
      if (deleted) {
        if (got !== undefined) return `b${x}-k0 should be deleted (by batch ${x + 50})`;
      } else if (j !== 0 || got !== undefined) {
        if (got !== `v${x}-${j}-${pad}`) return `b${x}-k${j} = ${got}`;
      }
    }
  }
  for (let r = 0; r < 100 && r <= b; r++) {
    const newest = b - ((((b - r) % 100) + 100) % 100);
    const got = Number(text(db.get(`hot${r}`)));
    if (!(got >= newest)) return `hot${r} = ${got}, expected >= ${newest}`;
  }
  return undefined;
}

process.stdout.write("ready\n");
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const [cmd, arg] = line.split(" ");
  if (cmd === "stop") break;
  const b = Number(arg);
  let failure;
  try {
    let db = secondary;
    if (db !== undefined) {
      db.tryCatchUpWithPrimary();
      catchUps++;
    } else {
      db = await DB.open(dir, { readOnly: true });
    }
    failure = verify(db, b);
    if (secondary === undefined) await db.close();
  } catch (e) {
    failure = `threw ${e?.code ?? ""} ${e?.message ?? e}`;
  }
  process.stdout.write(failure === undefined ? `ok ${b}\n` : `fail ${b} ${failure}\n`);
}
if (secondary !== undefined) await secondary.close();
secondary = undefined;
process.stdout.write(`closed ${catchUps}\n`);
