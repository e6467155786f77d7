/**
 * The JSON-RPC body `user` (development and tests only, `security.allowBodyUser`): a POST to the
 * JSON-RPC route whose parsed body holds a `user` gives that user, once its shape is checked.
 */
import { isPlainObject, ObjectQLError, type AuthRequest, type User } from '../../kernel';

/** The body user of a JSON-RPC request, undefined when the request carries none. */
export function bodyUser(req: AuthRequest, rpcPath: string): User | undefined {
  if (req.method !== 'POST' || !samePath(req.path, rpcPath)) return undefined;
  const body = req.body;
  if (!isPlainObject(body) || body.user === undefined) return undefined;
  const user = body.user;
  if (!isPlainObject(user) || typeof user.id !== 'string' || !user.id) {
    throw new ObjectQLError('INVALID_REQUEST', "'user' must be {id: string, roles: string[]}");
  }
  const roles = user.roles ?? [];
  if (!Array.isArray(roles) || !roles.every((r) => typeof r === 'string'))
    throw new ObjectQLError('INVALID_REQUEST', "'user.roles' must be an array of strings");
  return { ...user, id: user.id, roles: [...roles] };
}

/** Express matches routes case-insensitively and ignores a trailing slash: so does this. */
function samePath(path: string, route: string): boolean {
  return path.replace(/\/+$/, '').toLowerCase() === route.toLowerCase();
}
