/**
 * The notes app's page: notes kept with `@shale/level`'s ShaleLevel (the Level API, as with
 * browser-level) in a shale database on OPFS, which runs in a dedicated worker; the page
 * only sends requests and renders. Notes are a sublevel "notes" keyed by a 15-digit time,
 * so iterating it lists them oldest first; every write event re-renders the list.
 * "export" downloads the database's files as a tar archive that opens in Node.
 */
import { ShaleLevel } from "@shale/level";
import { writeTar } from "./tar.js";

const list = document.querySelector<HTMLUListElement>("#notes")!;
const form = document.querySelector<HTMLFormElement>("#add")!;
const input = document.querySelector<HTMLInputElement>("#text")!;
const status = document.querySelector<HTMLParagraphElement>("#status")!;
const exportButton = document.querySelector<HTMLButtonElement>("#export")!;

/** Writes made durable (the OPFS handle flushed) before their promise resolves. */
const DURABLE = { sync: true, keyEncoding: "utf8", valueEncoding: "utf8" };

const db = new ShaleLevel("notes-app");
const notes = db.sublevel<string, string>("notes", { valueEncoding: "utf8" });

async function all(): Promise<[string, string][]> {
  return notes.iterator().all();
}

async function render(): Promise<void> {
  const items = await all();
  list.replaceChildren(
    ...items.map(([key, text]) => {
      const li = document.createElement("li");
      const remove = document.createElement("button");
      remove.textContent = "delete";
      remove.addEventListener("click", () => void notes.del(key, DURABLE));
      li.append(`${text} `, remove);
      return li;
    }),
  );
  status.textContent = `${items.length} note(s), stored on this origin's private file system`;
}

let last = 0;
/** A key that sorts after every earlier one, even within one millisecond. */
function newKey(): string {
  last = Math.max(last + 1, Date.now());
  return String(last).padStart(15, "0");
}

/** The database's files as a tar archive (the memtable flushed first). */
async function exportTar(): Promise<Uint8Array<ArrayBuffer>> {
  return writeTar(await db.exportDatabase());
}

try {
  await db.open();
  db.on("write", () => void render());
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (input.value.trim() === "") return;
    await notes.put(newKey(), input.value, DURABLE);
    input.value = "";
  });
  exportButton.addEventListener("click", async () => {
    const blob = new Blob([await exportTar()], {
      type: "application/x-tar",
    });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = "notes-db.tar";
    a.click();
    URL.revokeObjectURL(a.href);
  });
  addEventListener("pagehide", () => void db.close());
  // For scripted checks (main.ts --check): add a note, list the notes, export.
  Object.assign(globalThis, {
    notesApp: {
      add: (text: string) => notes.put(newKey(), text, DURABLE),
      list: async () => (await all()).map(([, text]) => text),
      exportBase64: async () => {
        const tar = await exportTar();
        let s = "";
        for (let i = 0; i < tar.length; i += 0x8000)
          s += String.fromCharCode(...tar.subarray(i, i + 0x8000));
        return btoa(s);
      },
    },
  });
  await render();
} catch (err) {
  // Busy: another tab has the notes open; NotSupported: no OPFS or no cross-origin isolation.
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  status.textContent = `cannot open the notes: ${cause?.message ?? (err as Error).message}`;
  Object.assign(globalThis, { notesApp: { error: cause?.code ?? "Error" } });
}
