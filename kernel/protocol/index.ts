/**
 * The shared protocol layer (`objectql/protocol`): what every protocol plugin — JSON-RPC, REST,
 * OData, GraphQL, realtime, files, the metadata API — needs between its own syntax and the
 * kernel, written once so that the same input gets the same answer everywhere. A plugin imports
 * the kernel's face and this layer, never another plugin.
 */
export { listOptions, type ListInput } from './list-options';
export { assertJsonBody, isJsonContentType, jsonBodyProblem } from './json-body';
export { assertJsonTextDepth, assertValueDepth, jsonTextDepth, valueDepth } from './json-depth';
export { decodeJsonFields, fromJsonText, isJsonTextField, toJsonText } from './json-text';
export { listenOnOwnPort, type OwnPortServer } from './own-port';
export { portOption, routeOptions, type RouteOptions } from './options';
export { upgradeAuthRequest } from '../http/auth-request';
export { admitUpgrade, authenticateSocket, refuseUpgrade } from '../http/upgrade-admission';
export { addressKey } from './address-key';
export { webSockets, type WebSocketRegistry, type WebSocketLimits } from './ws-registry';
export { type GuardedSocket, type GuardOptions } from './ws-socket';
export { parseFilter, type FilterLimits } from '../query/parse-filter';
export { parseSort } from '../engine/query-check';
export { assertSpecExpand } from '../engine/expand';
export { fileExtension, IMAGE_DEFAULT_ACCEPT, isAccepted } from '../engine/attachment-value';
export { ETAG_FIELDS, etagMatches, etagOf, ifUnchangedSinceOf, parseEntityTags } from './etag';
export * from './openapi';
export type {
  ActionDescriptor,
  FieldDescriptor,
  ObjectAccess,
  ObjectDescriptor,
  ObjectSummary,
  ParamDescriptor,
} from './metadata-descriptors';
