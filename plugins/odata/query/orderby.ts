/**
 * $orderby: a comma list of properties, each optionally followed by `asc` (the default) or `desc`.
 * Each property must be one of the object's as the caller sees it; whether it can be sorted by
 * (not JSON, not multiple-valued) is the engine's check.
 */
import type { ObjectDefinition, SortKey } from '../../../kernel';
import { propertyError, type Source } from './errors';
import { describe, Tokens } from './lexer';

export function parseOrderBy(src: Source, object: ObjectDefinition, start = 0, end = src.text.length): SortKey[] {
  const t = new Tokens(src, start, end);
  const keys: SortKey[] = [];
  do {
    const token = t.next();
    if (token.kind !== 'name') throw t.error(token, `expected a property, got ${describe(token)}`);
    if (t.peek().kind === '/')
      throw t.error(
        token,
        `navigation paths such as '${token.text}/${t.peek(1).text}' are not supported; order by this object's own properties`,
      );
    if (t.peek().kind === '(') throw t.error(token, `ordering by a function ('${token.text}(...)') is not supported; order by properties`);
    if (!Object.prototype.hasOwnProperty.call(object.fields, token.text)) {
      throw propertyError(src, token.text, `unknown property '${token.text}' on '${object.name}'`, token.pos);
    }
    const dir = t.peek();
    const word = dir.kind === 'name' ? dir.text.toLowerCase() : '';
    if (word === 'asc' || word === 'desc') t.next();
    else if (dir.kind !== ',' && dir.kind !== 'end')
      throw t.error(dir, `expected 'asc', 'desc', ',' or the end after '${token.text}', got ${describe(dir)}`);
    keys.push({ field: token.text, dir: word === 'desc' ? 'desc' : 'asc' });
  } while (t.peek().kind === ',' && t.next());
  if (t.peek().kind !== 'end') throw t.error(t.peek(), `expected ',' or the end, got ${describe(t.peek())}`);
  return keys;
}
