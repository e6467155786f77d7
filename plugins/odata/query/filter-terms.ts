/**
 * The leaves of a $filter: operands (properties, literals, function calls on a property) and the
 * kernel conditions a comparison of two operands becomes. Literals are checked against the
 * property's OData type here (a number property takes a number, a date property a date...), so
 * the engine never reads a quoted string as something else; everything else about values (select
 * options, ranges, coercion) is the engine's.
 *
 * Text functions and case: the kernel's `contains`, `startswith` and `endswith` are
 * case-insensitive on every driver, so OData's (case-sensitive by the OData spec) are too here.
 * `tolower(p)` / `toupper(p)` compared with eq / ne, or as the first argument of those
 * functions, are exact when the literal is already in that case (a case-insensitive match of it)
 * and match nothing otherwise (`tolower(name) eq 'Ab'` can never hold).
 */
import { NUMERIC_TYPES, TEXTUAL_TYPES, type FieldDefinition, type Filter, type Operator } from '../../../kernel';
import { propertyError, syntaxError, type Source } from './errors';
import type { Token } from './lexer';

export type LiteralType = 'string' | 'number' | 'boolean' | 'null' | 'date' | 'datetime' | 'time' | 'guid';
export type OperandFunction = 'length' | 'tolower' | 'toupper';

export interface PropertyOperand {
  kind: 'property';
  name: string;
  field: FieldDefinition;
  pos: number;
  fn?: OperandFunction;
  /** Reached through to-one relations (their names, outermost first): the property is the related record's. */
  path?: string[];
  /** The path as written (`project_nav/name`), for messages. */
  written?: string;
}

export interface LiteralOperand {
  kind: 'literal';
  type: LiteralType;
  value: string | number | boolean | null;
  text: string;
  pos: number;
}

export type Operand = PropertyOperand | LiteralOperand;

export type Comparison = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le';
export const COMPARISONS: ReadonlySet<string> = new Set<Comparison>(['eq', 'ne', 'gt', 'ge', 'lt', 'le']);
const FLIPPED: Record<Comparison, Comparison> = { eq: 'eq', ne: 'ne', gt: 'lt', ge: 'le', lt: 'gt', le: 'ge' };

/** A filter matching no record. */
export const NOTHING: Filter = { or: [] };

/** The literal kinds a property of this type can be compared with, and how messages name the type. */
function accepted(field: FieldDefinition): { types: LiteralType[]; name: string } {
  if (NUMERIC_TYPES.has(field.type)) return { types: ['number'], name: 'a number' };
  switch (field.type) {
    case 'boolean':
      return { types: ['boolean'], name: 'a boolean' };
    case 'date':
      return { types: ['date'], name: 'a date' };
    case 'datetime':
      return { types: ['datetime', 'date'], name: 'a date-time' };
    case 'time':
      return { types: ['time'], name: 'a time of day' };
    default:
      return { types: ['string', 'guid'], name: 'a string' };
  }
}

export function literalOf(token: Token): LiteralOperand | undefined {
  switch (token.kind) {
    case 'string':
    case 'number':
    case 'date':
    case 'datetime':
    case 'time':
    case 'guid':
      return { kind: 'literal', type: token.kind, value: token.value!, text: token.text, pos: token.pos };
    case 'name':
      if (token.text === 'true' || token.text === 'false')
        return { kind: 'literal', type: 'boolean', value: token.text === 'true', text: token.text, pos: token.pos };
      if (token.text === 'null') return { kind: 'literal', type: 'null', value: null, text: token.text, pos: token.pos };
      return undefined;
    default:
      return undefined;
  }
}

export function describeOperand(o: Operand): string {
  if (o.kind === 'literal')
    return o.type === 'null'
      ? 'null'
      : `${o.type === 'guid' ? 'the GUID' : o.type === 'datetime' ? 'the date-time' : o.type === 'time' ? 'the time of day' : `the ${o.type}`} ${o.text}`;
  const name = o.written ?? o.name;
  return o.fn ? `${o.fn}(${name})` : `'${name}'`;
}

/** Checks that a function may apply to a property. */
export function checkFunctionArgument(src: Source, fn: OperandFunction, property: PropertyOperand): void {
  if (!TEXTUAL_TYPES.has(property.field.type)) {
    throw propertyError(src, property.name, `${fn}() applies to text properties; '${property.name}' is not one`, property.pos);
  }
}

/** `left op right` with op one of eq, ne, gt, ge, lt, le. */
export function comparison(src: Source, left: Operand, op: Comparison, right: Operand, at: Token): Filter {
  if (left.kind === 'literal' && right.kind === 'literal') {
    throw syntaxError(src, at.pos, `'${op}' compares two values (${left.text}, ${right.text}); one side must be a property`);
  }
  if (left.kind === 'property' && right.kind === 'property') {
    if (left.fn || right.fn)
      throw propertyError(
        src,
        left.name,
        `cannot compare ${describeOperand(left)} with ${describeOperand(right)}: a function result can only be compared with a value`,
        at.pos,
      );
    return { field: left.name, op, ref: right.name };
  }
  return left.kind === 'property'
    ? condition(src, left, op, right as LiteralOperand, at)
    : condition(src, right as PropertyOperand, FLIPPED[op], left, at);
}

function condition(src: Source, property: PropertyOperand, op: Comparison, literal: LiteralOperand, at: Token): Filter {
  if (property.fn === 'length') {
    if (literal.type !== 'number')
      throw propertyError(
        src,
        property.name,
        `length(${property.name}) must be compared with a number, not ${describeOperand(literal)}`,
        literal.pos,
      );
    return { field: property.name, op, value: literal.value, fn: 'length' };
  }
  if (property.fn) {
    if (op !== 'eq' && op !== 'ne')
      throw propertyError(
        src,
        property.name,
        `${property.fn}(${property.name}) can only be compared with eq or ne, or used in contains, startswith and endswith`,
        at.pos,
      );
    if (literal.type !== 'string')
      throw propertyError(
        src,
        property.name,
        `${property.fn}(${property.name}) must be compared with a string, not ${describeOperand(literal)}`,
        literal.pos,
      );
    const equal = foldedMatch(property, 'like', String(literal.value), escapeLike);
    return op === 'eq' ? equal : { not: equal };
  }
  if (literal.type === 'null') {
    if (op !== 'eq' && op !== 'ne') throw propertyError(src, property.name, `null can only be compared with eq or ne, not '${op}'`, at.pos);
    return { field: property.name, op: 'isnull', value: op === 'eq' };
  }
  checkLiteral(src, property, literal);
  return { field: property.name, op, value: literal.value };
}

/** The literal fits the property's type. */
export function checkLiteral(src: Source, property: PropertyOperand, literal: LiteralOperand): void {
  const { types, name } = accepted(property.field);
  if (!types.includes(literal.type)) {
    throw propertyError(
      src,
      property.name,
      `'${property.name}' is ${name} property and cannot be compared with ${describeOperand(literal)}`,
      literal.pos,
    );
  }
}

/**
 * A case-insensitive text condition standing for tolower(p) / toupper(p) compared with `text`:
 * exact when `text` is already folded that way, nothing otherwise.
 */
export function foldedMatch(property: PropertyOperand, op: Operator, text: string, encode: (s: string) => string = (s) => s): Filter {
  const folded = property.fn === 'toupper' ? text.toUpperCase() : text.toLowerCase();
  if (folded !== text) return NOTHING;
  return { field: property.name, op, value: encode(text) };
}

/** A value matched literally by the kernel's `like` (`\` escapes `%`, `_` and itself). */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `property in (values)`; a null in the list is a null test. */
export function membership(src: Source, property: PropertyOperand, values: LiteralOperand[], at: Token): Filter {
  if (property.fn) {
    const parts = values.map((v) => condition(src, property, 'eq', v, at));
    return parts.length === 1 ? parts[0] : { or: parts };
  }
  const present = values.filter((v) => v.type !== 'null');
  for (const v of present) checkLiteral(src, property, v);
  const list: Filter = { field: property.name, op: 'in', value: [...new Set(present.map((v) => v.value))] };
  if (present.length === values.length) return list;
  const isNull: Filter = { field: property.name, op: 'isnull', value: true };
  return present.length === 0 ? isNull : { or: [list, isNull] };
}

export type TextFunction = 'contains' | 'startswith' | 'endswith';
export const TEXT_FUNCTIONS: ReadonlySet<string> = new Set<TextFunction>(['contains', 'startswith', 'endswith']);

/** contains / startswith / endswith (property, string or property). */
export function textFunction(src: Source, fn: TextFunction, args: Operand[], at: Token): Filter {
  if (args.length !== 2) throw syntaxError(src, at.pos, `${fn}() takes 2 arguments, got ${args.length}`);
  const [subject, search] = args;
  if (subject.kind !== 'property' || subject.fn === 'length') {
    throw syntaxError(
      src,
      subject.pos,
      `the first argument of ${fn}() must be a property (or tolower/toupper of one), not ${describeOperand(subject)}`,
    );
  }
  if (search.kind === 'property') {
    if (subject.fn || search.fn)
      throw propertyError(src, subject.name, `${fn}() compares two properties only without functions around them`, search.pos);
    return { field: subject.name, op: fn, ref: search.name };
  }
  if (search.type !== 'string')
    throw propertyError(
      src,
      subject.name,
      `the second argument of ${fn}() must be a string or a property, not ${describeOperand(search)}`,
      search.pos,
    );
  const text = String(search.value);
  return subject.fn ? foldedMatch(subject, fn, text) : { field: subject.name, op: fn, value: text };
}
