/**
 * externalFileInfo over properties made by hand (the `user` strings); tables opened by a
 * reader carry `externalFile` decoded from the bytes (properties.test.ts), and SstFileWriter's
 * and RocksDB's files are read back in sst-file-writer.test.ts and its interop test.
 */
import { describe, expect, it } from "vitest";
import { ExternalSstFilePropertyName, externalFileInfo } from "./external-file.js";

describe("externalFileInfo", () => {
  it("undefined for an ordinary table, Corruption for a bad width", () => {
    expect(externalFileInfo({ user: {} })).toBeUndefined();
    expect(
      externalFileInfo({ user: { [ExternalSstFilePropertyName.VERSION]: "\u0001\0\0\0" } }),
    ).toEqual({ version: 1, globalSeqno: 0 });
    expect(() =>
      externalFileInfo({ user: { [ExternalSstFilePropertyName.VERSION]: "\u0002" } }),
    ).toThrow(expect.objectContaining({ code: "Corruption" }));
    // fixed64 0xa9c3 is c3 a9 00 00 00 00 00 00 (little-endian), which is UTF-8: "é" and NULs
    const version = "\u0002\0\0\0";
    expect(
      externalFileInfo({
        user: {
          [ExternalSstFilePropertyName.VERSION]: version,
          [ExternalSstFilePropertyName.GLOBAL_SEQNO]: "\u00e9\0\0\0\0\0\0",
        },
      }),
    ).toEqual({ version: 2, globalSeqno: 0xa9c3 });
    expect(() =>
      externalFileInfo({
        user: {
          [ExternalSstFilePropertyName.VERSION]: version,
          [ExternalSstFilePropertyName.GLOBAL_SEQNO]: "\uFFFD\0\0\0\0\0",
        },
      }),
    ).toThrow(expect.objectContaining({ code: "NotSupported" }));
  });
});
