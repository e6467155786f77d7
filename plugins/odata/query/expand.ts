/**
 * $expand → the engine's expand tree. Items are comma-separated navigation properties, each with
 * optional options in parentheses separated by semicolons, nested to any depth up to
 * maxExpandDepth (a top-level item is depth 1):
 *
 *   $expand=customer($select=name,email;$filter=active eq true;$orderby=name desc;$top=5;$expand=owner)
 *
 * Options inside: $select, $filter, $orderby, $top, $expand, and on a one-to-many navigation
 * property (kind `reverse`: `tasks` on project) also $skip and $count (`count: true`: the engine
 * sets `<name>@count` on each parent). $search and $levels are refused there, as are `*`, `/$ref`
 * and paths. A navigation property is one the navigation lookup knows (query/navigation.ts: the
 * model's, or a relation field whose target `resolve` knows); the nested options are checked
 * against its target. Positions in messages count from the start of the whole $expand value.
 */
import type { ExpandOptions, ObjectDefinition } from '../../../kernel';
import { ODataQueryError, propertyError, syntaxError, type Source } from './errors';
import { parseFilterExpression, type FilterContext } from './filter';
import { navigationLookup, type NavigationLookup } from './navigation';
import { parseOrderBy } from './orderby';
import { parseSelect } from './select';
import type { ODataNavigation } from './types';
import { nonNegativeInteger } from './values';

export interface ExpandSettings {
  resolve(name: string): ObjectDefinition | undefined;
  maxExpandDepth: number;
  maxTop: number;
  /** The filter limits; their `navigation` also names the navigation properties that can be expanded. */
  limits: FilterContext;
}

export interface ParsedExpand {
  expand: Record<string, ExpandOptions>;
  /** The navigation properties of this level, in order. */
  names: string[];
}

const NAME = /[\p{L}_][\p{L}\p{N}_]*/uy;
const SUPPORTED = '$select, $filter, $orderby, $top and $expand';
const NOT_NESTED = new Set(['$search', '$levels']);

export function parseExpand(text: string, object: ObjectDefinition, settings: ExpandSettings): ParsedExpand {
  return new ExpandParser(text, settings).items(object, 0, text.length, 1, []);
}

class ExpandParser {
  private readonly navigation: NavigationLookup;

  constructor(
    private readonly text: string,
    private readonly settings: ExpandSettings,
  ) {
    this.navigation = settings.limits.navigation ?? navigationLookup({ resolve: (name) => settings.resolve(name) });
  }

  private source(path: string[], option?: string): Source {
    const where = path.length ? `$expand: in '${path.join('/')}'${option ? `, ${option}` : ''}` : option ? `$expand: ${option}` : '$expand';
    return { text: this.text, where, target: '$expand' };
  }

  private skipSpace(i: number, end: number): number {
    while (i < end && /\s/.test(this.text[i])) i++;
    return i;
  }

  /** The comma-separated items between start and end, at `depth`, inside the navigation `path`. */
  items(object: ObjectDefinition, start: number, end: number, depth: number, path: string[]): ParsedExpand {
    const src = this.source(path);
    const expand: Record<string, ExpandOptions> = {};
    const names: string[] = [];
    let i = this.skipSpace(start, end);
    for (;;) {
      if (this.text[i] === '*') throw syntaxError(src, i, "'*' is not supported; name the navigation properties to expand");
      NAME.lastIndex = i;
      const match = i < end ? NAME.exec(this.text) : null;
      if (!match || match.index + match[0].length > end) {
        throw syntaxError(src, i, `expected a navigation property, got ${i >= end ? 'the end' : `'${this.text[i]}'`}`);
      }
      const name = match[0];
      const at = i;
      i = this.skipSpace(i + name.length, end);
      if (this.text[i] === '/' && i < end)
        throw syntaxError(
          src,
          at,
          `paths such as '${name}/…' ($ref, $count, casts, deeper properties) are not supported; nest $expand inside '${name}(…)'`,
        );
      if (depth > this.settings.maxExpandDepth) {
        const message = `$expand: '${[...path, name].join('/')}' is nested ${depth} levels deep; the maximum expand depth is ${this.settings.maxExpandDepth}`;
        throw new ODataQueryError('EXPAND_DEPTH_EXCEEDED', message, '$expand');
      }
      const nav = this.navigationTarget(src, object, name, at);
      if (names.includes(name)) throw propertyError(src, name, `'${name}' is expanded twice; expand it once`, at);
      names.push(name);
      let options: ExpandOptions = {};
      if (this.text[i] === '(' && i < end) {
        const close = this.closing(src, i, end);
        options = this.options(nav, i + 1, close, depth, [...path, name]);
        i = this.skipSpace(close + 1, end);
      }
      expand[name] = options;
      if (i >= end) break;
      if (this.text[i] !== ',') throw syntaxError(src, i, `expected ',' or '(' after '${name}', got '${this.text[i]}'`);
      i = this.skipSpace(i + 1, end);
    }
    return { expand, names };
  }

  private navigationTarget(src: Source, object: ObjectDefinition, name: string, at: number): ODataNavigation {
    const nav = this.navigation(object, name);
    if (!nav) throw propertyError(src, name, `'${name}' is not a navigation property of '${object.name}'`, at);
    return nav;
  }

  /** The position of the ')' closing the '(' at `open`, skipping string literals. */
  private closing(src: Source, open: number, end: number): number {
    let depth = 0;
    for (let i = open; i < end; i++) {
      const ch = this.text[i];
      if (ch === "'") {
        i = this.stringEnd(src, i, end);
      } else if (ch === '(') {
        depth++;
      } else if (ch === ')' && --depth === 0) {
        return i;
      }
    }
    throw syntaxError(src, open, "'(' is not closed");
  }

  /** The position of the quote closing the string literal opened at `open` ('' is a quote inside). */
  private stringEnd(src: Source, open: number, end: number): number {
    for (let i = open + 1; i < end; i++) {
      if (this.text[i] !== "'") continue;
      if (this.text[i + 1] === "'" && i + 1 < end) i++;
      else return i;
    }
    throw syntaxError(src, open, 'unterminated string literal');
  }

  /** `$name=value` pairs separated by ';' between start and end (the inside of an item's parentheses). */
  private options(nav: ODataNavigation, start: number, end: number, depth: number, path: string[]): ExpandOptions {
    const target = nav.target;
    const src = this.source(path);
    const out: ExpandOptions = {};
    const context = { navigation: this.navigation, maxNavigationDepth: this.settings.limits.maxNavigationDepth };
    const seen = new Set<string>();
    for (const [from, to] of this.segments(src, start, end)) {
      const s = this.skipSpace(from, to);
      if (s >= to) {
        if (from === start && to === end) break; // `rel()`: no options
        throw syntaxError(src, s, "empty option between ';'");
      }
      const eq = this.text.indexOf('=', s);
      const name = (eq < 0 || eq >= to ? this.text.slice(s, to) : this.text.slice(s, eq)).trim();
      if (eq < 0 || eq >= to) throw syntaxError(src, s, `expected '$option=value', got '${name}'`);
      if (seen.has(name)) throw syntaxError(src, s, `${name} is given twice`);
      seen.add(name);
      const optionSrc = this.source(path, name);
      const [vs, ve] = [eq + 1, to];
      switch (name) {
        case '$select': {
          const select = parseSelect(optionSrc, target, vs, ve);
          if (select.fields) out.fields = select.fields;
          break;
        }
        case '$filter':
          out.filter = parseFilterExpression(optionSrc, target, this.settings.limits, vs, ve);
          break;
        case '$orderby':
          out.sort = parseOrderBy(optionSrc, target, vs, ve, context);
          break;
        case '$top':
          out.top = this.integer(optionSrc, vs, ve);
          if (out.top > this.settings.maxTop) throw syntaxError(optionSrc, vs, `may be at most ${this.settings.maxTop}, got ${out.top}`);
          break;
        case '$skip':
        case '$count':
          if (nav.kind !== 'reverse')
            throw syntaxError(
              src,
              s,
              `${name} is not supported inside $expand of '${nav.name}' (${nav.kind === 'one' ? 'a single record' : 'a multiple relation'}); the options there are ${SUPPORTED}, and $skip and $count on one-to-many navigation properties`,
            );
          if (name === '$skip') out.skip = this.integer(optionSrc, vs, ve);
          else out.count = this.boolean(optionSrc, vs, ve);
          break;
        case '$expand':
          out.expand = this.items(target, vs, ve, depth + 1, path).expand;
          break;
        default:
          if (NOT_NESTED.has(name))
            throw syntaxError(src, s, `${name} is not supported inside $expand; the options there are ${SUPPORTED}`);
          throw syntaxError(src, s, `unknown option '${name}'; the options inside $expand are ${SUPPORTED}`);
      }
    }
    return out;
  }

  private integer(src: Source, start: number, end: number): number {
    const raw = this.text.slice(start, end).trim();
    const value = nonNegativeInteger(raw);
    if (value === undefined) throw syntaxError(src, start, `must be a non-negative integer, got '${raw}'`);
    return value;
  }

  private boolean(src: Source, start: number, end: number): boolean {
    const raw = this.text.slice(start, end).trim();
    if (raw !== 'true' && raw !== 'false') throw syntaxError(src, start, `must be true or false, got '${raw}'`);
    return raw === 'true';
  }

  /** [start, end) ranges between the top-level ';' of a range, skipping strings and parentheses. */
  private segments(src: Source, start: number, end: number): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    let from = start;
    for (let i = start; i < end; i++) {
      const ch = this.text[i];
      if (ch === "'") i = this.stringEnd(src, i, end);
      else if (ch === '(') i = this.closing(src, i, end);
      else if (ch === ';') {
        out.push([from, i]);
        from = i + 1;
      }
    }
    out.push([from, end]);
    return out;
  }
}
