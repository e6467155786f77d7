/**
 * $compute (OData 4.01, 11.2.5.3): `expression as alias` items, comma-separated, each adding a
 * property computed from the entity's own — by recursive descent over the lexer's tokens:
 *
 *   compute  := expr 'as' alias (',' expr 'as' alias)*
 *   expr     := term (('add' | 'sub') term)*
 *   term     := factor (('mul' | 'div' | 'divby' | 'mod') factor)*
 *   factor   := '(' expr ')' | literal (number, string) | property | function '(' expr (',' expr)* ')'
 *
 * Functions: concat (text), tolower, toupper, trim, substring(text, start[, length]), length,
 * indexof(text, text), year, month, day, hour, minute, second (of a date or date-time), round,
 * floor, ceiling. Arithmetic takes numbers; any null operand makes the result null (OData's
 * rule), and so does a division by zero. Properties are checked against the object as the caller
 * sees it, so a computed value never shows a field the caller may not read. The values are
 * computed by the plugin on the rows the engine returns (evaluateComputed); the text and the
 * number of nodes are bounded. Pure.
 */
import type { DataRecord, FieldDefinition, FieldType, ObjectDefinition } from '../../../kernel';
import { JSON_VALUE_TYPES, NUMERIC_TYPES } from '../../../kernel';
import { optionError, propertyError, type Source } from './errors';
import { describe, Tokens, type Token } from './lexer';

type ValueType = 'number' | 'text' | 'other';

export type ComputeExpr =
  | { kind: 'property'; name: string }
  | { kind: 'literal'; value: string | number }
  | { kind: 'binary'; op: Arithmetic; left: ComputeExpr; right: ComputeExpr }
  | { kind: 'call'; fn: ComputeFunction; args: ComputeExpr[] };

type Arithmetic = 'add' | 'sub' | 'mul' | 'div' | 'divby' | 'mod';
type ComputeFunction = keyof typeof FUNCTIONS;

export interface ComputedProperty {
  alias: string;
  expr: ComputeExpr;
  /** How the value is typed, as a field (for $select and messages). */
  field: FieldDefinition;
  /** The entity's properties the expression reads. */
  reads: string[];
}

export interface ComputeLimits {
  /** Most characters of the $compute text. */
  maxLength: number;
  /** Most nodes (operators, operands, calls) in all. */
  maxNodes: number;
}

const ANY: ValueType[] = ['text', 'number', 'other'];

/** Each function: its argument types and its result type. */
const FUNCTIONS = {
  concat: { args: [ANY, ANY], result: 'text' },
  tolower: { args: [['text']], result: 'text' },
  toupper: { args: [['text']], result: 'text' },
  trim: { args: [['text']], result: 'text' },
  substring: { args: [['text'], ['number'], ['number']], optional: 1, result: 'text' },
  length: { args: [['text']], result: 'number' },
  indexof: { args: [['text'], ['text']], result: 'number' },
  year: { args: [['other']], result: 'number', dates: true },
  month: { args: [['other']], result: 'number', dates: true },
  day: { args: [['other']], result: 'number', dates: true },
  hour: { args: [['other']], result: 'number', dates: true },
  minute: { args: [['other']], result: 'number', dates: true },
  second: { args: [['other']], result: 'number', dates: true },
  round: { args: [['number']], result: 'number' },
  floor: { args: [['number']], result: 'number' },
  ceiling: { args: [['number']], result: 'number' },
} as const satisfies Record<string, { args: ValueType[][]; result: ValueType; optional?: number; dates?: boolean }>;

const ARITHMETIC = new Set<string>(['add', 'sub', 'mul', 'div', 'divby', 'mod']);
const ALIAS = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const DATE_TYPES = new Set<FieldType>(['date', 'datetime', 'time']);

export function parseCompute(text: string, object: ObjectDefinition, limits: ComputeLimits): ComputedProperty[] {
  if (text.length > limits.maxLength) throw optionError('$compute', `is longer than ${limits.maxLength} characters`);
  const src: Source = { text, where: '$compute', target: '$compute' };
  return new ComputeParser(src, object, limits).parse();
}

class ComputeParser {
  private readonly t: Tokens;
  private nodes = 0;
  private reads = new Set<string>();

  constructor(
    private readonly src: Source,
    private readonly object: ObjectDefinition,
    private readonly limits: ComputeLimits,
  ) {
    this.t = new Tokens(src);
  }

  parse(): ComputedProperty[] {
    const out: ComputedProperty[] = [];
    do {
      this.reads = new Set();
      const { expr, type } = this.expr();
      const as = this.t.next();
      if (as.kind !== 'name' || as.text !== 'as') throw this.t.error(as, `expected an operator or 'as' and an alias, got ${describe(as)}`);
      const alias = this.t.next();
      if (alias.kind !== 'name' || !ALIAS.test(alias.text)) throw this.t.error(alias, `expected an alias (a name), got ${describe(alias)}`);
      if (Object.prototype.hasOwnProperty.call(this.object.fields, alias.text) || out.some((c) => c.alias === alias.text))
        throw propertyError(this.src, alias.text, `the alias '${alias.text}' is already a property; choose another name`, alias.pos);
      const field: FieldDefinition =
        expr.kind === 'property'
          ? { ...this.object.fields[expr.name], name: alias.text, label: alias.text, required: false }
          : { name: alias.text, label: alias.text, type: type === 'number' ? 'number' : 'text' };
      out.push({ alias: alias.text, expr, field, reads: [...this.reads] });
    } while (this.t.peek().kind === ',' && this.t.next());
    const rest = this.t.peek();
    if (rest.kind !== 'end') throw this.t.error(rest, `expected ',' or the end, got ${describe(rest)}`);
    return out;
  }

  private node(at: Token): void {
    if (++this.nodes > this.limits.maxNodes) throw this.t.error(at, `the expressions have more than ${this.limits.maxNodes} parts`);
  }

  private expr(): { expr: ComputeExpr; type: ValueType } {
    return this.binary(['add', 'sub'], () => this.binary(['mul', 'div', 'divby', 'mod'], () => this.factor()));
  }

  private binary(ops: string[], operand: () => { expr: ComputeExpr; type: ValueType }): { expr: ComputeExpr; type: ValueType } {
    let left = operand();
    for (;;) {
      const op = this.t.peek();
      if (op.kind !== 'name' || !ops.includes(op.text)) return left;
      this.t.next();
      this.node(op);
      const right = operand();
      for (const side of [left, right]) if (side.type !== 'number') throw this.t.error(op, `'${op.text}' takes numbers on both sides`);
      left = { expr: { kind: 'binary', op: op.text as Arithmetic, left: left.expr, right: right.expr }, type: 'number' };
    }
  }

  private factor(): { expr: ComputeExpr; type: ValueType } {
    const token = this.t.next();
    this.node(token);
    if (token.kind === '(') {
      const inner = this.expr();
      this.t.expect(')', `')' to close the '(' at position ${token.pos}`);
      return inner;
    }
    if (token.kind === 'number') return { expr: { kind: 'literal', value: token.value as number }, type: 'number' };
    if (token.kind === 'string') return { expr: { kind: 'literal', value: token.value as string }, type: 'text' };
    if (token.kind !== 'name') throw this.t.error(token, `expected a property, a value or a function, got ${describe(token)}`);
    if (this.t.peek().kind === '(') return this.call(token);
    if (this.t.peek().kind === '/')
      throw this.t.error(
        token,
        `navigation paths such as '${token.text}/...' are not supported in $compute; use this object's own properties`,
      );
    if (ARITHMETIC.has(token.text)) throw this.t.error(token, `expected a property, a value or a function, got '${token.text}'`);
    const field = Object.prototype.hasOwnProperty.call(this.object.fields, token.text) ? this.object.fields[token.text] : undefined;
    if (!field) throw propertyError(this.src, token.text, `unknown property '${token.text}' on '${this.object.name}'`, token.pos);
    if (JSON_VALUE_TYPES.has(field.type) || field.multiple)
      throw propertyError(
        this.src,
        token.text,
        `'${token.text}' (${field.type}${field.multiple ? ', multiple' : ''}) cannot be computed with`,
        token.pos,
      );
    this.reads.add(token.text);
    const type: ValueType = NUMERIC_TYPES.has(field.type)
      ? 'number'
      : DATE_TYPES.has(field.type) || field.type === 'boolean'
        ? 'other'
        : 'text';
    return { expr: { kind: 'property', name: token.text }, type };
  }

  private call(name: Token): { expr: ComputeExpr; type: ValueType } {
    if (!Object.prototype.hasOwnProperty.call(FUNCTIONS, name.text))
      throw this.t.error(
        name,
        `function '${name.text}' is not supported in $compute; the functions are ${Object.keys(FUNCTIONS).join(', ')}`,
      );
    const fn = name.text as ComputeFunction;
    const spec: { args: readonly (readonly ValueType[])[]; result: ValueType; optional?: number; dates?: boolean } = FUNCTIONS[fn];
    this.t.expect('(', `'(' after ${fn}`);
    const args: Array<{ expr: ComputeExpr; type: ValueType }> = [];
    if (this.t.peek().kind !== ')') {
      do args.push(this.expr());
      while (this.t.peek().kind === ',' && this.t.next());
    }
    this.t.expect(')', `',' or ')' in the arguments of ${fn}()`);
    const min = spec.args.length - (spec.optional ?? 0);
    if (args.length < min || args.length > spec.args.length)
      throw this.t.error(
        name,
        `${fn}() takes ${min === spec.args.length ? min : `${min} or ${spec.args.length}`} arguments, got ${args.length}`,
      );
    args.forEach((arg, i) => {
      const ok = spec.dates ? isDateProperty(this.object, arg.expr) : spec.args[i].includes(arg.type);
      if (!ok)
        throw this.t.error(
          name,
          `argument ${i + 1} of ${fn}() must be ${spec.dates ? 'a date or date-time property' : spec.args[i].join(' or ')}`,
        );
    });
    return { expr: { kind: 'call', fn, args: args.map((a) => a.expr) }, type: spec.result };
  }
}

function isDateProperty(object: ObjectDefinition, expr: ComputeExpr): boolean {
  return expr.kind === 'property' && (object.fields[expr.name].type === 'date' || object.fields[expr.name].type === 'datetime');
}

/** The value of a computed property for one record (as the engine returned it). */
export function evaluateComputed(expr: ComputeExpr, record: DataRecord): unknown {
  switch (expr.kind) {
    case 'property':
      return record[expr.name] ?? null;
    case 'literal':
      return expr.value;
    case 'binary': {
      const a = evaluateComputed(expr.left, record);
      const b = evaluateComputed(expr.right, record);
      if (typeof a !== 'number' || typeof b !== 'number') return null;
      return finite(arithmetic(expr.op, a, b));
    }
    case 'call':
      return callFunction(
        expr.fn,
        expr.args.map((a) => evaluateComputed(a, record)),
      );
  }
}

function arithmetic(op: Arithmetic, a: number, b: number): number {
  switch (op) {
    case 'add':
      return a + b;
    case 'sub':
      return a - b;
    case 'mul':
      return a * b;
    case 'div':
    case 'divby':
      return a / b;
    case 'mod':
      return a % b;
  }
}

function finite(n: number): number | null {
  return Number.isFinite(n) ? n : null;
}

function callFunction(fn: ComputeFunction, args: unknown[]): unknown {
  if (args.some((a) => a === null || a === undefined)) return null;
  const text = (i: number) => String(args[i]);
  const num = (i: number) => args[i] as number;
  switch (fn) {
    case 'concat':
      return text(0) + text(1);
    case 'tolower':
      return text(0).toLowerCase();
    case 'toupper':
      return text(0).toUpperCase();
    case 'trim':
      return text(0).trim();
    case 'substring': {
      const start = Math.max(0, Math.trunc(num(1)));
      return args.length > 2 ? text(0).substr(start, Math.max(0, Math.trunc(num(2)))) : text(0).slice(start);
    }
    case 'length':
      return text(0).length;
    case 'indexof':
      return text(0).indexOf(text(1));
    case 'round':
      return Math.round(num(0));
    case 'floor':
      return Math.floor(num(0));
    case 'ceiling':
      return Math.ceil(num(0));
    default:
      return datePart(fn, args[0]);
  }
}

/** year() ... second() of a date ('2025-01-31') or a date-time (ISO 8601, read in UTC). */
function datePart(fn: 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', value: unknown): number | null {
  const time = value instanceof Date ? value.getTime() : Date.parse(String(value));
  if (Number.isNaN(time)) return null;
  const d = new Date(time);
  switch (fn) {
    case 'year':
      return d.getUTCFullYear();
    case 'month':
      return d.getUTCMonth() + 1;
    case 'day':
      return d.getUTCDate();
    case 'hour':
      return d.getUTCHours();
    case 'minute':
      return d.getUTCMinutes();
    case 'second':
      return d.getUTCSeconds();
  }
}
