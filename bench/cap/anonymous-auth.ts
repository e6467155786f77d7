/**
 * CAP's auth middleware for the bench: none. Deployed, CAP runs `jwt` auth, which passes a request
 * without an Authorization header straight on as the anonymous user (no binding to XSUAA exists
 * here to start it with); this is that path, at that cost. The service declares @requires: 'any',
 * so anonymous users may read and write, as on the ObjectQL server.
 */
import type { NextFunction, Request, Response } from 'express';

export default function anonymousAuth() {
  return (_req: Request, _res: Response, next: NextFunction): void => next();
}
