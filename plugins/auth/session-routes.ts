/**
 * `POST {path}/session` exchanges a Bearer token or an API key for a session cookie;
 * `GET {path}/session` shows the current session; `DELETE {path}/session` ends it. `path` is the
 * `sessions.path` option as served: under the instance's base path.
 *
 * A request reaches these routes only once `authenticate` accepted it, so the credential form its
 * headers present (the authenticator's precedence) is the one it was authenticated with.
 */
import type { Request, Response, Router } from 'express';
import { isAnonymous, ObjectQLError, type Kernel } from '../../kernel';
import type { Authenticator } from './authenticator';
import { clearedSessionCookie, readSessionCookie, sessionCookie } from './cookie';
import type { SessionOptions } from './options';
import type { Session, SessionService } from './sessions';

export interface SessionRouteSettings {
  kernel: Kernel;
  /** The served prefix of the routes (`kernel.http.path(options.path)`). */
  path: string;
  options: SessionOptions;
  service: SessionService;
  authenticator: Authenticator;
}

const NO_SESSION = 'No session: send the session_id cookie';

export function sessionRoutes(router: Router, { kernel, path, options, service, authenticator }: SessionRouteSettings): void {
  const route = `${path}/session`;
  const handle = (fn: (req: Request, res: Response) => Promise<void>) => async (req: Request, res: Response) => {
    res.setHeader('Cache-Control', 'no-store');
    try {
      await fn(req, res);
    } catch (err) {
      kernel.http.sendError(req, res, err);
    }
  };

  /** The session the request's cookie names, when a session cookie authenticated it. */
  async function currentSession(req: Request): Promise<Session & { id: string }> {
    const id =
      authenticator.formOf(req.headers as Record<string, string | undefined>) === 'session'
        ? readSessionCookie(req.headers.cookie)
        : undefined;
    const session = id === undefined ? undefined : await service.get(id);
    if (!session || id === undefined) throw new ObjectQLError('UNAUTHORIZED', NO_SESSION);
    return { ...session, id };
  }

  router.post(
    route,
    handle(async (req, res) => {
      const form = authenticator.formOf(req.headers as Record<string, string | undefined>);
      const user = req.objectql.user;
      if ((form !== 'bearer' && form !== 'apiKey') || !user || isAnonymous(user)) {
        throw new ObjectQLError(
          'UNAUTHORIZED',
          'A session is created from a Bearer token or an X-API-Key header; a session cookie or a body user cannot create one',
        );
      }
      const session = await service.create(user);
      res.setHeader('Set-Cookie', sessionCookie(session.id, options.ttlSeconds, options.cookie, req.secure));
      res.status(201).json({ data: { expires_at: session.expiresAt.toISOString(), user: session.user } });
    }),
  );

  router.get(
    route,
    handle(async (req, res) => {
      const session = await currentSession(req);
      res.json({ data: { expires_at: session.expiresAt.toISOString(), user: req.objectql.user } });
    }),
  );

  router.delete(
    route,
    handle(async (req, res) => {
      const session = await currentSession(req);
      await service.revoke(session.id);
      res.setHeader('Set-Cookie', clearedSessionCookie(options.cookie, req.secure));
      res.status(204).end();
    }),
  );
}
