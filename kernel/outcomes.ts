/**
 * What the kernel reports of finished work, for observers such as a metrics plugin: every HTTP
 * response and every engine operation. Reported through the `responded` and `operation` hooks,
 * and only when something taps them: nothing is timed otherwise.
 */

/** One HTTP request, once its response was sent or its connection closed first. */
export interface HttpOutcome {
  method: string;
  /**
   * The route pattern that answered (`/api/data/:object/:id`), never the request's own path: a
   * label with a bounded set of values. Undefined when no route matched (404).
   */
  route?: string;
  /** The request's path without the query: for matching a door's prefix, never for a label as is. */
  path: string;
  /** The status sent; 499 when the client closed the connection before the response was complete. */
  status: number;
  seconds: number;
}

/** One data operation a caller ran through the engine (a repository method), once settled. */
export interface OperationOutcome {
  object: string;
  operation: string;
  /** 'ok', or the error's code (PERMISSION_DENIED, VALIDATION_FAILED, ... INTERNAL_ERROR). */
  outcome: string;
  seconds: number;
}
