/**
 * The kernel's public face (`objectql/kernel`, re-exported by `objectql`): what plugins, drivers
 * and applications build on. Interfaces rather than the classes behind them; what only protocols
 * need lives in the protocol layer (`objectql/protocol`, kernel/protocol/), the Redis plumbing in
 * `objectql/redis`.
 */

// The kernel and the plugin contract.
export { Kernel, type KernelOptions, type KernelServices, type PluginCatalog, type PluginLoader } from './kernel';
export { definePlugin, type Plugin, type PluginFactory, type PluginLike } from './plugin';
export { PluginError } from './plugin-order';
export { parsePluginOptions } from './plugin-options';
export { HookError, type Capability, type ChangeTransaction, type DataHook, type DataHookName, type KernelHooks } from './hooks';
export { importModule } from './util/import-module';
export type { HttpOutcome, OperationOutcome } from './outcomes';
export { inSpan, objectqlTracer, TRACER_NAME } from './tracing';

// Configuration.
export { ConfigError, loadConfigFile, resolveConfig } from './config/load';
export { DEFAULT_ROUTES, routePrefix, type ObjectQLConfig, type ResolvedConfig, type RouteKey } from './config/schema';

// Errors: one class, the spec's codes.
export { ERROR_CODES, ObjectQLError, isErrorCode, toObjectQLError, validationError, type ErrorBody, type ErrorCode } from './errors';

// Who asks: identity and the request context every engine call carries.
export { isAnonymous, type RequestContext, type User } from './context';
export type { AuthRequest } from './http/auth-request';
export type { ErrorRenderer, HttpHost, RenderedError, UpgradeHandler } from './http/host';
export type { UpgradeAdmission } from './http/upgrade-admission';
export type { ReadinessCheck, ReadinessState } from './http/readiness';
export { absoluteUrl, describeServer, type AuthenticationHint, type Door, type DoorUrl, type ServerDescription } from './http/doors';
export type { Logger } from './logger';

// Metadata.
export * from './metadata/types';
export { relationsOf, defaultRelatedName, type Relation } from './metadata/relations';
export { MetadataError, type MetadataChange, type MetadataRegistry } from './metadata/registry';
export { formatPath, lineOfPath, type PathSegment, type Report } from './metadata/problems';
export { describeValue, parseWith } from './metadata/zod-issues';
export { storageField, storageTable } from './metadata/storage-table';

// The data engine, its repositories and the events of committed changes.
export type * from './engine/types';
export {
  noChangeFeed,
  readChangesAfter,
  tooFarBehind,
  type ChangeFeed,
  type ChangesAfter,
  type FeedEvent,
  type FeedPage,
  type FeedRequest,
} from './change-feed';
export { RECORD_CHANGED_CHANNEL, type PubSub, type PubSubListener, type RecordChangedMessage } from './pubsub';

// Drivers: the datasource contract, the query AST they receive and its reference semantics.
export type {
  Datasource,
  DatasourceConfig,
  PoolStats,
  DbRecord,
  DriverCapabilities,
  DriverFactory,
  DriverDeps,
  Transaction,
  TransactionOptions,
} from './drivers';
export * from './query/ast';
export { compileFilter, evaluateFilter, compareValues, valuesEqual, compileLike } from './query/evaluate';
export { pagePerGroup } from './query/per-group';
// Exact sums and averages over decimal fields (currency, or a declared scale): the reference for drivers.
export { DecimalSum, isDecimalField, decimalSum, decimalAverage } from './query/decimal';

export { isPlainObject } from './util/objects';
