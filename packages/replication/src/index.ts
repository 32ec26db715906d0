/**
 * @shale/replication: a shale database's change feed into NATS JetStream, and followers on
 * other hosts that apply it in order, each batch once. See README.md.
 */
export { type ChangeFollower, type FollowOptions, followChanges } from "./follower.js";
export { databaseIdentity, feedIdentity, REPLICA_FILE, type ReplicaRecord } from "./identity.js";
export { type ChangePublisher, type PublishOptions, publishChanges } from "./publisher.js";
export { readOnlyView, WRITE_METHODS } from "./read-only.js";
export { batchSubject } from "./stream.js";
