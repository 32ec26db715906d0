/**
 * `shale/opfs/io-worker`: the OPFS I/O worker's script, for bundles: build it to
 * `opfs-io-worker.js` beside the bundle that opens an `OpfsFileSystem` (or pass its URL as
 * the `workerUrl` option).
 */
import "@shale/opfs/io-worker";
