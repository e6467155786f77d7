/** The kernel's public face: what plugins, drivers and applications import. */
export { Kernel, createKernel, type KernelServices } from './kernel';
export { definePlugin, type Plugin, type PluginFactory, type PluginLike } from './plugin';
export { PluginError } from './plugin-order';
export { ERROR_CODES, ObjectQLError, isErrorCode, toObjectQLError, validationError, type ErrorBody, type ErrorCode } from './errors';
export { HookError, type Capability, type DataHook, type DataHookName, type KernelHooks } from './hooks';
export { HttpHost, sendError, toHttpError } from './http/host';
export { ConfigError, loadConfigFile, resolveConfig } from './config/load';
export { DEFAULT_ROUTES, type ObjectQLConfig, type ResolvedConfig } from './config/schema';
export type { RequestContext, User } from './context';
export type { Datasource, DatasourceConfig, DbRecord, DriverCapabilities, DriverFactory, Transaction } from './drivers';
export * from './query/ast';
export { parseFilter, parseOperator, isFieldRef, OPERATOR_ALIASES, type FieldRef, type FilterLimits } from './query/parse-filter';
export { compileFilter, evaluateFilter, compareValues, valuesEqual, compileLike, likeToRegExp } from './query/evaluate';
export * from './metadata/types';
export { MetadataRegistry, MetadataError } from './metadata/registry';
export { DataEngine, type CompiledObject } from './engine/engine';
export type * from './engine/types';
export * from './openapi';
