/**
 * Nesting depth of JSON text, measured before anything recurses over it: JSON.parse itself copes
 * with deep input, but every walk over the parsed value after it (filters, sort, JSON field
 * values, GraphQL variables) would overflow the stack on a few thousand levels.
 */
import { ObjectQLError } from '../errors';

/** The deepest nesting of arrays and objects in `text` (0 for a scalar), scanning once and skipping strings. */
export function jsonTextDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** Refuses JSON text nested deeper than `max` levels (INVALID_REQUEST naming `what`), before it is parsed. */
export function assertJsonTextDepth(text: string, max: number, what: string): void {
  if (jsonTextDepth(text) > max) {
    throw new ObjectQLError('INVALID_REQUEST', `${what} is nested deeper than ${max} levels`, { limit: 'maxJsonDepth', max });
  }
}

/** The deepest nesting of arrays and objects in a parsed value, walked without recursion (stops counting past `max`). */
export function valueDepth(value: unknown, max = Infinity): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const depth = d + 1;
    if (depth > deepest) deepest = depth;
    if (deepest > max) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth]);
  }
  return deepest;
}

/** Refuses a parsed value nested deeper than `max` levels (INVALID_REQUEST naming `what`). */
export function assertValueDepth(value: unknown, max: number, what: string): void {
  if (valueDepth(value, max) > max) {
    throw new ObjectQLError('INVALID_REQUEST', `${what} is nested deeper than ${max} levels`, { limit: 'maxJsonDepth', max });
  }
}
