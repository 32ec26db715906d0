/**
 * `@shale/opfs`: shale's FileSystem over the browser's origin private file system, for a
 * database in a dedicated worker (`OpfsFileSystem`), and the environment check it makes.
 */
export type {
  DirectoryHandleLike,
  FileHandleLike,
  LockManagerLike,
  OpfsEnvironment,
  SyncAccessHandleLike,
} from "./opfs-api.js";
export {
  type OpfsClientHandle,
  OpfsFileSystem,
  type OpfsFileSystemOptions,
  type OpfsIoWorker,
} from "./opfs-file-system.js";
export { opfsSupportProblem, type SupportScope } from "./support.js";
