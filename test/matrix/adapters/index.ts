/**
 * Every protocol the permission matrix runs through. A new protocol (OData, GraphQL, files,
 * subscriptions) is one file beside these implementing protocol.ts's ProtocolAdapter, plus its
 * line here.
 */
import type { ProtocolAdapter } from '../protocol';
import { graphqlAdapter } from './graphql';
import { metadataAdapter } from './metadata';
import { odataAdapter } from './odata';
import { restAdapter } from './rest';
import { rpcAdapter } from './rpc';

export const ADAPTERS: ProtocolAdapter[] = [rpcAdapter, restAdapter, metadataAdapter, odataAdapter, graphqlAdapter];
