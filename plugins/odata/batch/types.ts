/**
 * The contract between the batch executor and the OData service. ODataRequest and ODataResponse are
 * declared here structurally (the same shapes as the service's own, in ../service.ts) so that this
 * folder does not depend on when that file lands; TypeScript's structural typing keeps them
 * interchangeable.
 */
import type { DataEngine, Repository, RequestContext } from '../../../kernel';

/** One OData request as the service handles it, whatever carried it (HTTP, a batch part). */
export interface ODataRequest {
  /** Upper-case: GET, POST, PUT, PATCH, DELETE. */
  method: string;
  /** The path after the service's basePath, always starting with '/', plus '?query' when there is one: "/Books('1')?$select=title". */
  url: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** JSON bodies parsed; other bodies as text; absent when the request had none. */
  body?: unknown;
}

export interface ODataResponse {
  status: number;
  headers: Record<string, string>;
  /** A JSON value (serialized by the writer), a string (written as is) or a Buffer. */
  body?: unknown;
}

/** What the batch needs of the engine for one request: a repository per object, for the given caller. */
export interface DispatchEngine {
  repo(object: string, ctx: RequestContext): Repository;
}

/**
 * The service's request handler. It must answer every failure as an error response (status >= 400)
 * rather than throw (a throw is answered for it), and reach data only through `engine`: inside a
 * changeset that engine is the changeset's transaction.
 */
export interface BatchDispatcher {
  handle(req: ODataRequest, ctx: RequestContext, engine: DispatchEngine): Promise<ODataResponse>;
}

export interface BatchInput {
  /** The batch request's Content-Type: multipart/mixed with a boundary, or application/json (OData 4.01 JSON batch). */
  contentType: string;
  /** The raw body; for application/json the already parsed JSON value is accepted as well. */
  body: unknown;
  ctx: RequestContext;
  dispatcher: BatchDispatcher;
  engine: DataEngine;
  /** The service root path, e.g. '/odata' (no trailing slash). */
  basePath: string;
  limits: {
    /** Most requests in one batch, counting those inside changesets. */
    maxParts: number;
    /** Largest body accepted, when the caller has not limited it already. */
    maxBytes?: number;
  };
  /** The batch request's own headers (lower-case names); only `prefer` is read (continue-on-error). */
  headers?: Record<string, string | string[] | undefined>;
}

export interface BatchResult {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}
