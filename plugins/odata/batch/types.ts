/** The contract between the batch executor and the OData service (../service.ts). */
import type { DataEngine, Logger, RequestContext } from '../../../kernel';
import type { ODataEngine, ODataRequest, ODataResponse } from '../service';

export type { ODataRequest, ODataResponse };

/** What the batch needs of the engine for one request: a repository per object, for the given caller. */
export type DispatchEngine = ODataEngine;

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
  /** Where failures are logged when the caller's context has no logger of its own. */
  logger: Logger;
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
