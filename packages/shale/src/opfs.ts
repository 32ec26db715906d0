/**
 * `shale/opfs`: the browser's origin private file system as shale's FileSystem, for a
 * database in a dedicated worker (`@shale/opfs`).
 */
export * from "@shale/opfs";
