export {
  CACHE_CHANNEL,
  type CacheInvalidationOptions,
  cacheInvalidationsFor,
  createCacheTopicTrigger,
  type DatabaseInvalidations,
  type InvalidationState,
  startCacheInvalidations,
} from "./cache-invalidations.js";
export { CLUSTER_FOLDER, type ClusterEngine, isAlive, isCluster } from "./cluster-files.js";
export {
  type ArgumentKind,
  type ArgumentKinds,
  type ArgumentsOf,
  type CompiledOnce,
  compileOnce,
  type RowOf,
} from "./compile-once.js";
export { type Database, type DatabaseOptions, openDatabase, pingDatabase } from "./database.js";
export {
  type EmbeddedPostgres,
  type EmbeddedPostgresOptions,
  embeddedTemplateDir,
  startEmbeddedPostgres,
} from "./embedded.js";
export {
  BackupError,
  backupDataDir,
  clusterEngineOf,
  platformRunsOn,
  restoreDataDir,
} from "./embedded-backup.js";
export {
  NATIVE_SETTINGS,
  type NativePostgresOptions,
  NativeUnreachableError,
  startNativePostgres,
} from "./embedded-native.js";
export { netAddressOf } from "./embedded-socket.js";
export { startEmbeddedPostgresThread } from "./embedded-thread.js";
export { MigrationError, type Migrations, migrateToLatest, missingMigrations } from "./migrate.js";
export { NamingClient } from "./named-statements.js";
export { type NativeBinaries, nativeBinaries } from "./native-binaries.js";
export { makePrivate } from "./private-folder.js";
export { createPostgresRateLimitCounter, type RateLimitDecision } from "./rate-limit-counter.js";
export {
  createReplayGuard,
  insertUsedValues,
  purgeUsedValuesSometimes,
  type ReplayGuard,
  type UsedValueTables,
} from "./replay-guard.js";
export {
  type RewrapOutcome,
  type Rewrapper,
  rewrapSealedColumn,
  type SealedColumn,
} from "./rewrap-sealed-column.js";
export {
  createTestDatabase,
  EMBEDDED_TEST_DATABASE_URL_VAR,
  recordStatements,
  startTestCacheInvalidations,
  type TestDatabase,
  testDatabaseUrl,
} from "./testing.js";
