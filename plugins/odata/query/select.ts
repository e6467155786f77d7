/**
 * $select: a comma list of properties, or `*` (every property the caller may read). Each property
 * must be one of the object's as the caller sees it. Navigation paths (`customer/name`) and
 * qualified names are refused.
 */
import type { ObjectDefinition } from '../../../kernel';
import { propertyError, type Source } from './errors';
import { describe, Tokens } from './lexer';

export interface ParsedSelect {
  /** As written (each once), for the context URL. */
  names: string[];
  /** The fields to fetch, `id` first; undefined for `*` (all fields). */
  fields?: string[];
}

export function parseSelect(src: Source, object: ObjectDefinition, start = 0, end = src.text.length): ParsedSelect {
  const t = new Tokens(src, start, end);
  const names: string[] = [];
  let all = false;
  do {
    const token = t.next();
    if (token.kind === '*') {
      all = true;
      if (!names.includes('*')) names.push('*');
      continue;
    }
    if (token.kind !== 'name') throw t.error(token, `expected a property or '*', got ${describe(token)}`);
    if (t.peek().kind === '/')
      throw t.error(
        token,
        `navigation paths such as '${token.text}/${t.peek(1).text}' are not supported; select the navigation property's fields inside $expand`,
      );
    if (t.peek().kind === '(') throw t.error(token, `'${token.text}(' is not a property: functions and actions cannot be selected`);
    if (!Object.prototype.hasOwnProperty.call(object.fields, token.text)) {
      throw propertyError(src, token.text, `unknown property '${token.text}' on '${object.name}'`, token.pos);
    }
    if (!names.includes(token.text)) names.push(token.text);
  } while (t.peek().kind === ',' && t.next());
  if (t.peek().kind !== 'end') throw t.error(t.peek(), `expected ',' or the end, got ${describe(t.peek())}`);
  return { names, fields: all ? undefined : ['id', ...names.filter((n) => n !== 'id')] };
}
