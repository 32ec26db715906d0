/**
 * The notes app's page: a list of notes kept in a shale database on OPFS, which runs in a
 * dedicated worker (`openInWorker`); the page only sends requests and renders.
 * Keys are "note:<15-digit time>", so a range scan lists the notes oldest first.
 */
import { openInWorker, type WorkerDatabase } from "shale/opfs";

const decoder = new TextDecoder();
const list = document.querySelector<HTMLUListElement>("#notes")!;
const form = document.querySelector<HTMLFormElement>("#add")!;
const input = document.querySelector<HTMLInputElement>("#text")!;
const status = document.querySelector<HTMLParagraphElement>("#status")!;

async function notes(db: WorkerDatabase): Promise<{ key: string; text: string }[]> {
  const out: { key: string; text: string }[] = [];
  for await (const [key, value] of db.iterator({ gte: "note:", lt: "note;" })) {
    out.push({ key: decoder.decode(key), text: decoder.decode(value) });
  }
  return out;
}

async function render(db: WorkerDatabase): Promise<void> {
  const items = await notes(db);
  list.replaceChildren(
    ...items.map(({ key, text }) => {
      const li = document.createElement("li");
      const remove = document.createElement("button");
      remove.textContent = "delete";
      remove.addEventListener("click", async () => {
        await db.del(key, { sync: true });
        await render(db);
      });
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
  return `note:${String(last).padStart(15, "0")}`;
}

try {
  const db = await openInWorker("notes-app");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (input.value.trim() === "") return;
    await db.put(newKey(), input.value, { sync: true });
    input.value = "";
    await render(db);
  });
  addEventListener("pagehide", () => void db.close());
  // For scripted checks (main.ts --check): add a note, list the notes.
  Object.assign(globalThis, {
    notesApp: {
      add: async (text: string) => {
        await db.put(newKey(), text, { sync: true });
        await render(db);
      },
      list: async () => (await notes(db)).map((n) => n.text),
    },
  });
  await render(db);
} catch (err) {
  // Busy: another tab has the notes open; NotSupported: no OPFS or no cross-origin isolation.
  status.textContent = `cannot open the notes: ${(err as Error).message}`;
  Object.assign(globalThis, { notesApp: { error: (err as { code?: string }).code ?? "Error" } });
}
