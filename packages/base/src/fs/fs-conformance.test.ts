import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeFileSystemConformance } from "../testing/fs-conformance.js";
import { FaultInjectionFileSystem } from "./fault-fs.js";
import { MemoryFileSystem } from "./memory-fs.js";
import { NodeFileSystem } from "./node-fs.js";

describeFileSystemConformance("NodeFileSystem", () => {
  const root = mkdtempSync(join(tmpdir(), "shale-fs-"));
  return {
    fs: new NodeFileSystem(),
    root,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
});

describeFileSystemConformance("MemoryFileSystem", () => ({
  fs: new MemoryFileSystem(),
  root: "/db",
}));

describeFileSystemConformance("MemoryFileSystem (relative root)", () => ({
  fs: new MemoryFileSystem(),
  root: "data/db",
}));

describeFileSystemConformance("FaultInjectionFileSystem over MemoryFileSystem", () => ({
  fs: new FaultInjectionFileSystem(new MemoryFileSystem()),
  root: "/db",
}));
