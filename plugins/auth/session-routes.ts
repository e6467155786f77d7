/**
 * `POST {path}/session` exchanges a Bearer token or an API key for a session cookie;
 * `GET {path}/session` shows the current session; `DELETE {path}/session` ends it.
 */
import type { Request, Response, Router } from 'express';
import { sendError } from '../../kernel';
import type { Authenticator } from './authenticator';
import { clearedSessionCookie, sessionCookie } from './cookie';
import type { SessionOptions } from './options';
import { unauthorized } from './rejection';
import type { SessionService } from './sessions';

export interface SessionRouteSettings {
  options: SessionOptions;
  service: SessionService;
  authenticator: Authenticator;
}

export function sessionRoutes(router: Router, { options, service, authenticator }: SessionRouteSettings): void {
  const route = `${options.path}/session`;
  const handle = (fn: (req: Request, res: Response) => Promise<void>) => async (req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-store');
    try {
      await fn(req, res);
    } catch (err) {
      sendError(req, res, err);
    }
  };

  router.post(
    route,
    handle(async (req, res) => {
      const form = authenticator.credential(req)?.form;
      const user = req.objectql.user;
      if ((form !== 'bearer' && form !== 'apiKey') || !user) {
        throw unauthorized(
          req,
          'A session is created from a Bearer token or an X-API-Key header; a session cookie or a body user cannot create one',
        );
      }
      const session = await service.create(user);
      res.setHeader('Set-Cookie', sessionCookie(session.id, options.ttlSeconds, options.cookie, req));
      res.status(201).json({ data: { expires_at: session.expiresAt.toISOString(), user: session.user } });
    }),
  );

  router.get(
    route,
    handle(async (req, res) => {
      const credential = authenticator.credential(req);
      if (credential?.form !== 'session') throw unauthorized(req, 'No session: send the session_id cookie');
      res.json({ data: { expires_at: credential.expiresAt.toISOString(), user: req.objectql.user } });
    }),
  );

  router.delete(
    route,
    handle(async (req, res) => {
      const credential = authenticator.credential(req);
      if (credential?.form !== 'session') throw unauthorized(req, 'No session: send the session_id cookie');
      await service.revoke(credential.sessionId);
      res.setHeader('Set-Cookie', clearedSessionCookie(options.cookie, req));
      res.status(204).end();
    }),
  );
}
