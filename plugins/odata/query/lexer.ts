/**
 * The tokens of OData's expression syntax ($filter, and the name lists of $select and $orderby):
 * names, literals, punctuation (':' separates a lambda's variable from its condition). Literal forms (OData V4 ABNF):
 * - string  'text', a quote inside written twice: 'O''Neil'
 * - number  integer or decimal, optional sign and exponent: 5, -3, 2.5, 1e3; one type suffix of
 *   OData V2 (and of clients that still send it: the SAP Cloud SDK's typed filter writes `1000D`
 *   on Edm.Double) is accepted and dropped: D/d (double), F/f (single), M/m (decimal), L/l (int64)
 * - date  2024-01-31; datetime (zone required)  2024-01-31T10:00:00Z, 2024-01-31T10:00:00.5+02:00;
 *   time of day  10:00, 10:00:30.25; GUID  01234567-89ab-cdef-0123-456789abcdef (read as a string)
 * `true`, `false` and `null` are names here; the parser reads them as literals. Positions are
 * 0-based character offsets into the option's text.
 */
import { syntaxError, type Source } from './errors';

export type TokenKind = 'name' | 'string' | 'number' | 'date' | 'datetime' | 'time' | 'guid' | '(' | ')' | ',' | '/' | '*' | ':' | 'end';

export interface Token {
  kind: TokenKind;
  /** The token as written. */
  text: string;
  pos: number;
  /** Literals: the string (strings, dates, times, GUIDs as written) or the number. */
  value?: string | number;
}

const NAME = /[\p{L}_][\p{L}\p{N}_]*/uy;
const GUID = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![\p{L}\p{N}_-])/uy;
const DATETIME = /(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,12})?)?(?:Z|[+-](\d{2}):(\d{2}))(?![\p{L}\p{N}_.:-])/uy;
const DATE = /(\d{4})-(\d{2})-(\d{2})(?![\p{L}\p{N}_.:-])/uy;
const TIME = /(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,12})?)?(?![\p{L}\p{N}_.:-])/uy;
const NUMBER = /([+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)[dDfFmMlL]?(?![\p{L}\p{N}_.:-])/uy;
const PUNCTUATION = new Set(['(', ')', ',', '/', '*', ':']);

function match(re: RegExp, text: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(text);
}

/** Reads tokens one at a time, so an error further on waits until the parser gets there. */
export class Lexer {
  private readonly text: string;
  private i: number;

  constructor(
    readonly src: Source,
    start: number,
    private readonly end: number,
    private readonly options: LexerOptions = {},
  ) {
    this.text = src.text.slice(0, end);
    this.i = start;
  }

  next(): Token {
    const { text, end } = this;
    while (this.i < end && /\s/.test(text[this.i])) this.i++;
    if (this.i >= end) return { kind: 'end', text: '', pos: end };
    const ch = text[this.i];
    const token =
      ch === "'"
        ? stringAt(this.src, text, this.i)
        : PUNCTUATION.has(ch)
          ? { kind: ch as TokenKind, text: ch, pos: this.i }
          : ch === '$' && this.options.dollarNames
            ? dollarName(this.src, text, this.i)
            : literalOrName(this.src, text, this.i);
    this.i = token.pos + token.text.length;
    return token;
  }
}

/** What a grammar lets through beyond $filter's tokens. */
export interface LexerOptions {
  /** `$count` and other `$`-names as name tokens ($apply's `aggregate($count as n)`). */
  dollarNames?: boolean;
}

const DOLLAR_NAME = /\$[A-Za-z_][A-Za-z0-9_]*/y;

function dollarName(src: Source, text: string, i: number): Token {
  const m = match(DOLLAR_NAME, text, i);
  if (!m) throw syntaxError(src, i, "unexpected character '$'");
  return { kind: 'name', text: m[0], pos: i };
}

function stringAt(src: Source, text: string, start: number): Token {
  let value = '';
  let i = start + 1;
  for (;;) {
    const close = text.indexOf("'", i);
    if (close < 0) throw syntaxError(src, start, "unterminated string literal; close it with ', and write a quote inside it as ''");
    value += text.slice(i, close);
    if (text[close + 1] === "'") {
      value += "'";
      i = close + 2;
      continue;
    }
    return { kind: 'string', text: text.slice(start, close + 1), pos: start, value };
  }
}

function literalOrName(src: Source, text: string, i: number): Token {
  const guid = match(GUID, text, i);
  if (guid) return { kind: 'guid', text: guid[0], pos: i, value: guid[0] };
  const ch = text[i];
  if (/[0-9+-]/.test(ch)) {
    const dt = match(DATETIME, text, i);
    if (dt) {
      const [, y, mo, d, h, mi, s = '0', zh = '0', zm = '0'] = dt;
      if (!validDate(+y, +mo, +d) || +h > 23 || +mi > 59 || +s > 59 || +zh > 23 || +zm > 59)
        throw syntaxError(src, i, `invalid date-time '${dt[0]}'`);
      return { kind: 'datetime', text: dt[0], pos: i, value: dt[0] };
    }
    const date = match(DATE, text, i);
    if (date) {
      if (!validDate(+date[1], +date[2], +date[3])) throw syntaxError(src, i, `invalid date '${date[0]}'`);
      return { kind: 'date', text: date[0], pos: i, value: date[0] };
    }
    const time = match(TIME, text, i);
    if (time) {
      const [, h, mi, s = '0'] = time;
      if (+h > 23 || +mi > 59 || +s > 59) throw syntaxError(src, i, `invalid time of day '${time[0]}'`);
      return { kind: 'time', text: time[0], pos: i, value: time[0] };
    }
    const num = match(NUMBER, text, i);
    if (num) {
      const value = Number(num[1]);
      if (!Number.isFinite(value)) throw syntaxError(src, i, `number '${num[0]}' is out of range`);
      return { kind: 'number', text: num[0], pos: i, value };
    }
    const run = /[^\s(),/*']*/y;
    run.lastIndex = i;
    const written = run.exec(text)![0];
    if (/^\d{4}-\d{2}-\d{2}T/.test(written))
      throw syntaxError(src, i, `invalid date-time '${written}'; write it as 2024-01-31T10:00:00Z (the zone, Z or +hh:mm, is required)`);
    throw syntaxError(src, i, `invalid literal '${written}'`);
  }
  const name = match(NAME, text, i);
  if (name) return { kind: 'name', text: name[0], pos: i };
  const hint =
    text[i] === '@' ? '; parameter aliases are not supported' : text[i] === '$' ? '; $it, $root and other $-names are not supported' : '';
  throw syntaxError(src, i, `unexpected character '${text[i]}'${hint}`);
}

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= days[m - 1];
}

/** A token as messages quote it. */
export function describe(token: Token): string {
  return token.kind === 'end' ? 'the end' : `'${token.text}'`;
}

/** A cursor over the tokens of a text, read as the parser asks for them. */
export class Tokens {
  private readonly buffer: Token[] = [];
  private readonly lexer: Lexer;
  readonly src: Source;

  constructor(src: Source, start = 0, end = src.text.length, options: LexerOptions = {}) {
    this.src = src;
    this.lexer = new Lexer(src, start, end, options);
  }

  peek(ahead = 0): Token {
    while (this.buffer.length <= ahead) {
      const last = this.buffer[this.buffer.length - 1];
      this.buffer.push(last?.kind === 'end' ? last : this.lexer.next());
    }
    return this.buffer[ahead];
  }

  next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.buffer.shift();
    return token;
  }

  /** True (and consumed) when the next token is this name. */
  acceptName(name: string): boolean {
    const token = this.peek();
    if (token.kind !== 'name' || token.text !== name) return false;
    this.next();
    return true;
  }

  /** The next token, which must be of this kind. */
  expect(kind: TokenKind, what: string): Token {
    const token = this.peek();
    if (token.kind !== kind) throw this.error(token, `expected ${what}, got ${describe(token)}`);
    return this.next();
  }

  error(token: Token, problem: string): ReturnType<typeof syntaxError> {
    return syntaxError(this.src, token.pos, problem);
  }
}
