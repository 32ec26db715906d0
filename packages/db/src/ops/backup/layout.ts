/** The subdirectories of a backup directory (see engine.ts and docs/formats/backup.md). */
export const META = "meta";
export const PRIVATE = "private";
export const SHARED = "shared_checksum";
