/**
 * $search → the kernel's filter AST, pushed down like any filter. Syntax (OData V4):
 *
 *   or   := and ('OR' and)*
 *   and  := not (['AND'] not)*          terms side by side are and-ed
 *   not  := 'NOT' not | '(' or ')' | word | "a phrase"
 *
 * Operators are upper case; `"` inside a phrase is written `\"`, a backslash `\\`. A word or phrase
 * matches a record when one of its text properties (text, textarea, email, url, phone, select; not
 * multiple-valued, not system fields) contains it, case-insensitively: the OR of `contains`
 * conditions over those properties. With no such property a term matches nothing.
 */
import type { Filter, ObjectDefinition } from '../../../kernel';
import { syntaxError, type Source } from './errors';
import type { FilterLimits } from './filter';
import { NOTHING } from './filter-terms';

const SEARCHABLE = new Set(['text', 'textarea', 'email', 'url', 'phone', 'select']);

interface SearchToken {
  kind: 'word' | 'phrase' | '(' | ')' | 'AND' | 'OR' | 'NOT' | 'end';
  text: string;
  pos: number;
}

/** The properties a $search term looks in: the object's single-valued, non-system text fields. */
export function searchableFields(object: ObjectDefinition): string[] {
  return Object.values(object.fields)
    .filter((f) => SEARCHABLE.has(f.type) && !f.multiple && !f.system)
    .map((f) => f.name);
}

export function parseSearch(src: Source, object: ObjectDefinition, limits: FilterLimits): Filter {
  const tokens = tokenizeSearch(src);
  const fields = searchableFields(object);
  let index = 0;
  let depth = 0;
  let conditions = 0;
  const peek = () => tokens[index];
  const fail = (token: SearchToken, problem: string) => syntaxError(src, token.pos, problem);

  const term = (token: SearchToken): Filter => {
    conditions += Math.max(fields.length, 1);
    if (conditions > limits.maxConditions) {
      throw fail(
        token,
        `too many terms; each term is searched in ${fields.length} properties, and a search may make at most ${limits.maxConditions} conditions`,
      );
    }
    if (fields.length === 0) return NOTHING;
    const parts: Filter[] = fields.map((field) => ({ field, op: 'contains', value: token.text }));
    return parts.length === 1 ? parts[0] : { or: parts };
  };
  const enter = (token: SearchToken) => {
    if (++depth > limits.maxDepth) throw fail(token, `the search is nested deeper than ${limits.maxDepth} levels`);
  };

  const or = (): Filter => {
    const parts = [and()];
    while (peek().kind === 'OR') {
      index++;
      parts.push(and());
    }
    return parts.length === 1 ? parts[0] : { or: parts };
  };
  const and = (): Filter => {
    const parts = [not()];
    for (;;) {
      const token = peek();
      if (token.kind === 'AND') index++;
      else if (token.kind === 'OR' || token.kind === ')' || token.kind === 'end') break;
      parts.push(not());
    }
    return parts.length === 1 ? parts[0] : { and: parts };
  };
  const not = (): Filter => {
    const token = tokens[index++];
    switch (token.kind) {
      case 'NOT': {
        enter(token);
        const inner = not();
        depth--;
        return { not: inner };
      }
      case '(': {
        enter(token);
        const inner = or();
        const close = tokens[index++];
        if (close.kind !== ')')
          throw fail(
            close,
            `expected ')' to close the '(' at position ${token.pos}, got ${close.kind === 'end' ? 'the end' : `'${close.text}'`}`,
          );
        depth--;
        return inner;
      }
      case 'word':
      case 'phrase':
        return term(token);
      default:
        throw fail(token, `expected a word or a "phrase"${token.kind === 'end' ? ', got the end' : `, got '${token.text}'`}`);
    }
  };

  if (peek().kind === 'end') throw fail(peek(), 'expected a word or a "phrase", got nothing');
  const filter = or();
  if (peek().kind !== 'end') throw fail(peek(), `unexpected '${peek().text}'`);
  return filter;
}

function tokenizeSearch(src: Source): SearchToken[] {
  const text = src.text;
  const tokens: SearchToken[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '(' || ch === ')') {
      tokens.push({ kind: ch, text: ch, pos: i++ });
    } else if (ch === '"') {
      const start = i++;
      let value = '';
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\')) i++;
        value += text[i++];
      }
      if (i >= text.length) throw syntaxError(src, start, 'unterminated phrase; close it with ", and write a " inside it as \\"');
      i++;
      if (value.trim() === '') throw syntaxError(src, start, 'empty phrase');
      tokens.push({ kind: 'phrase', text: value, pos: start });
    } else {
      const start = i;
      while (i < text.length && !/[\s()"]/.test(text[i])) i++;
      const word = text.slice(start, i);
      const kind = word === 'AND' || word === 'OR' || word === 'NOT' ? word : 'word';
      tokens.push({ kind, text: word, pos: start });
    }
  }
  tokens.push({ kind: 'end', text: '', pos: text.length });
  return tokens;
}
