/**
 * A plain object: what JSON.parse makes of `{...}` and what an object literal is (its prototype is
 * Object.prototype or null). Arrays, null, class instances, Dates and Buffers are not.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
