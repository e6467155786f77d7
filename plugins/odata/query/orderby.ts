/**
 * $orderby: a comma list of properties, each optionally followed by `asc` (the default) or `desc`.
 * Each property must be one of the object's as the caller sees it; whether it can be sorted by
 * (not JSON, not multiple-valued) is the engine's check. With a navigation lookup a property may
 * be reached through to-one navigation properties (`project_nav/name desc`): the kernel's sort
 * key through those relations (`project.name`), at most `maxNavigationDepth` of them.
 */
import type { ObjectDefinition, SortKey } from '../../../kernel';
import { propertyError, type Source } from './errors';
import { describe, Tokens, type Token } from './lexer';
import { DEFAULT_NAVIGATION_DEPTH, followToOne, type NavigationLookup } from './navigation';

export interface OrderByContext {
  navigation?: NavigationLookup;
  maxNavigationDepth?: number;
}

export function parseOrderBy(
  src: Source,
  object: ObjectDefinition,
  start = 0,
  end = src.text.length,
  context: OrderByContext = {},
): SortKey[] {
  const t = new Tokens(src, start, end);
  const keys: SortKey[] = [];
  do {
    const token = t.next();
    if (token.kind !== 'name') throw t.error(token, `expected a property, got ${describe(token)}`);
    const segments: Token[] = [token];
    while (t.peek().kind === '/') {
      if (!context.navigation)
        throw t.error(
          token,
          `navigation paths such as '${token.text}/${t.peek(1).text}' are not supported here; order by this object's own properties`,
        );
      t.next();
      const part = t.next();
      if (part.kind !== 'name') throw t.error(part, `expected a property after '/', got ${describe(part)}`);
      segments.push(part);
    }
    const last = segments[segments.length - 1];
    if (t.peek().kind === '(') throw t.error(last, `ordering by a function ('${last.text}(...)') is not supported; order by properties`);
    const { relations, object: owner } = followToOne(
      src,
      object,
      segments.slice(0, -1),
      context.navigation,
      context.maxNavigationDepth ?? DEFAULT_NAVIGATION_DEPTH,
    );
    if (!Object.prototype.hasOwnProperty.call(owner.fields, last.text)) {
      throw propertyError(src, last.text, `unknown property '${last.text}' on '${owner.name}'`, last.pos);
    }
    const dir = t.peek();
    const word = dir.kind === 'name' ? dir.text.toLowerCase() : '';
    if (word === 'asc' || word === 'desc') t.next();
    else if (dir.kind !== ',' && dir.kind !== 'end')
      throw t.error(dir, `expected 'asc', 'desc', ',' or the end after '${last.text}', got ${describe(dir)}`);
    keys.push({ field: [...relations, last.text].join('.'), dir: word === 'desc' ? 'desc' : 'asc' });
  } while (t.peek().kind === ',' && t.next());
  if (t.peek().kind !== 'end') throw t.error(t.peek(), `expected ',' or the end, got ${describe(t.peek())}`);
  return keys;
}
