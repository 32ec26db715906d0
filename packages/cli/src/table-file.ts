/** Opens a table file for the file tools (read-only, no cache, checksums verified). */
import { statSync } from "node:fs";
import { NodeFileSystem, reverseBytewiseComparator } from "@shale/base";
import { TableReader } from "@shale/sstable";
import { CliError, ExitCode } from "./exit-codes.js";

export function openTable(path: string, comparator?: string): TableReader {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new CliError(`${path} is not a file`, ExitCode.Usage);
    size = st.size;
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`no such file: ${path}`, ExitCode.NotFound);
  }
  const fs = new NodeFileSystem();
  const options = { fileSize: size, fileName: path, verifyChecksums: true };
  if (comparator === "reverse") {
    return TableReader.open(fs.openRandomAccess(path), {
      ...options,
      comparator: reverseBytewiseComparator,
    });
  }
  return TableReader.open(fs.openRandomAccess(path), options);
}
