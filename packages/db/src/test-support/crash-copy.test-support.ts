/**
 * The directory `dir` of `fs` as a process killed now would leave it: every file as handed to
 * the OS (MemoryFileSystem keeps nothing back), without the LOCK. Test-only.
 */
import { MemoryFileSystem } from "@shale/base";

export function crashCopy(fs: MemoryFileSystem, dir: string): MemoryFileSystem {
  const copy = new MemoryFileSystem();
  copy.mkdir(dir);
  for (const name of fs.list(dir)) {
    if (name === "LOCK") continue;
    copy.writeFile(`${dir}/${name}`, fs.readFile(`${dir}/${name}`).slice());
  }
  return copy;
}
