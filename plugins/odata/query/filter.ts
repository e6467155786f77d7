/**
 * $filter → the kernel's filter AST, by recursive descent over the lexer's tokens:
 *
 *   or      := and ('or' and)*
 *   and     := unary ('and' unary)*
 *   unary   := 'not' unary | primary
 *   primary := '(' or ')'
 *            | textfn '(' args ')' [('eq' | 'ne') ('true' | 'false')]
 *            | operand (('eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le') operand | 'in' '(' literal (',' literal)* ')')
 *            | boolean property | 'true' | 'false'
 *   operand := literal | property | ('length' | 'tolower' | 'toupper') '(' property ')'
 *
 * Precedence is OData's: not, then and, then or; `not` takes the comparison after it
 * (`not price gt 5` is `not (price gt 5)`). Keywords are lower case, as OData writes them.
 * Properties are checked against the object as the caller sees it (the target's object: an
 * unknown property and one the caller may not read get the same error). Navigation paths
 * (`customer/name`), lambdas, arithmetic and functions other than contains, startswith,
 * endswith, length, tolower and toupper are refused with a message naming them.
 */
import type { Filter, ObjectDefinition } from '../../../kernel';
import { propertyError, syntaxError, type Source } from './errors';
import {
  COMPARISONS,
  NOTHING,
  TEXT_FUNCTIONS,
  checkFunctionArgument,
  comparison,
  describeOperand,
  literalOf,
  membership,
  textFunction,
  type Comparison,
  type LiteralOperand,
  type Operand,
  type OperandFunction,
  type PropertyOperand,
  type TextFunction,
} from './filter-terms';
import { describe, Tokens, type Token } from './lexer';

export interface FilterLimits {
  /** Deepest nesting of parentheses and `not`. */
  maxDepth: number;
  /** Most conditions in one filter. */
  maxConditions: number;
}

const OPERAND_FUNCTIONS: ReadonlySet<string> = new Set<OperandFunction>(['length', 'tolower', 'toupper']);
const UNSUPPORTED_OPERATORS = new Set(['has', 'add', 'sub', 'mul', 'div', 'divby', 'mod']);
/** Words that cannot start an operand (unless the object has a property of that name). */
const KEYWORDS = new Set(['and', 'or', ...COMPARISONS, 'in', ...UNSUPPORTED_OPERATORS]);
const SUPPORTED_FUNCTIONS = 'contains, startswith, endswith, length, tolower and toupper';

/** Parses a $filter (or the part of a text between start and end) against an object. */
export function parseFilterExpression(
  src: Source,
  object: ObjectDefinition,
  limits: FilterLimits,
  start = 0,
  end = src.text.length,
): Filter {
  return new FilterParser(new Tokens(src, start, end), object, limits).parse();
}

class FilterParser {
  private depth = 0;
  private conditions = 0;
  private readonly src: Source;

  constructor(
    private readonly t: Tokens,
    private readonly object: ObjectDefinition,
    private readonly limits: FilterLimits,
  ) {
    this.src = t.src;
  }

  parse(): Filter {
    if (this.t.peek().kind === 'end') throw this.t.error(this.t.peek(), 'expected an expression, got nothing');
    const filter = this.or();
    const rest = this.t.peek();
    if (rest.kind !== 'end') {
      const hint = rest.kind === ')' ? "a ')' without its '('" : describe(rest);
      throw this.t.error(rest, `expected 'and', 'or' or the end of the expression, got ${hint}`);
    }
    return filter;
  }

  private or(): Filter {
    const parts = [this.and()];
    while (this.t.acceptName('or')) parts.push(this.and());
    return parts.length === 1 ? parts[0] : { or: parts };
  }

  private and(): Filter {
    const parts = [this.unary()];
    while (this.t.acceptName('and')) parts.push(this.unary());
    return parts.length === 1 ? parts[0] : { and: parts };
  }

  private unary(): Filter {
    const token = this.t.peek();
    if (token.kind === 'name' && token.text === 'not' && this.t.peek(1).kind !== '/') {
      this.t.next();
      return this.nested(token, () => ({ not: this.unary() }));
    }
    return this.primary();
  }

  private nested(at: Token, fn: () => Filter): Filter {
    if (++this.depth > this.limits.maxDepth) throw this.t.error(at, `the expression is nested deeper than ${this.limits.maxDepth} levels`);
    const result = fn();
    this.depth--;
    return result;
  }

  private count<T extends Filter>(filter: T, at: Token): T {
    if (++this.conditions > this.limits.maxConditions)
      throw this.t.error(at, `the expression has more than ${this.limits.maxConditions} conditions`);
    return filter;
  }

  private primary(): Filter {
    const token = this.t.peek();
    if (token.kind === '(') {
      this.t.next();
      return this.nested(token, () => {
        const inner = this.or();
        this.t.expect(')', `')' to close the '(' at position ${token.pos}`);
        return inner;
      });
    }
    if (token.kind === 'name' && TEXT_FUNCTIONS.has(token.text) && this.t.peek(1).kind === '(') {
      this.t.next();
      const filter = this.count(textFunction(this.src, token.text as TextFunction, this.args(token), token), token);
      return this.booleanComparison(filter, token);
    }
    const left = this.operand();
    const opToken = this.t.peek();
    if (opToken.kind === 'name' && COMPARISONS.has(opToken.text)) {
      this.t.next();
      const right = this.operand(opToken);
      return this.count(comparison(this.src, left, opToken.text as Comparison, right, opToken), opToken);
    }
    if (opToken.kind === 'name' && opToken.text === 'in') {
      this.t.next();
      if (left.kind !== 'property') throw this.t.error(opToken, `'in' needs a property on its left, not ${describeOperand(left)}`);
      return this.count(membership(this.src, left, this.list(opToken), opToken), opToken);
    }
    if (opToken.kind === 'name' && UNSUPPORTED_OPERATORS.has(opToken.text)) {
      throw this.t.error(opToken, `operator '${opToken.text}' is not supported; use eq, ne, gt, ge, lt, le, in, and, or, not`);
    }
    if (endsCondition(opToken)) return this.standalone(left);
    throw this.t.error(
      opToken,
      `expected an operator (eq, ne, gt, ge, lt, le, in) after ${describeOperand(left)}, got ${describe(opToken)}`,
    );
  }

  /** An operand with no operator after it: a boolean property, or true / false. */
  private standalone(operand: Operand): Filter {
    if (operand.kind === 'literal') {
      if (operand.type === 'boolean') return operand.value ? { and: [] } : NOTHING;
      throw syntaxError(this.src, operand.pos, `${describeOperand(operand)} is not a condition; compare it with a property`);
    }
    if (operand.fn || operand.field.type !== 'boolean') {
      throw propertyError(
        this.src,
        operand.name,
        `${describeOperand(operand)} is not a condition: compare it with eq, ne, gt, ge, lt, le or in`,
        operand.pos,
      );
    }
    return { field: operand.name, op: 'eq', value: true };
  }

  /** After contains(...) and the like: an optional `eq true`, `eq false`, `ne true`, `ne false`. */
  private booleanComparison(filter: Filter, fn: Token): Filter {
    const op = this.t.peek();
    if (op.kind !== 'name' || !COMPARISONS.has(op.text)) return filter;
    this.t.next();
    const value = this.t.next();
    if ((op.text !== 'eq' && op.text !== 'ne') || value.kind !== 'name' || (value.text !== 'true' && value.text !== 'false')) {
      throw this.t.error(op, `${fn.text}() can only be compared with eq or ne and true or false`);
    }
    return (op.text === 'eq') === (value.text === 'true') ? filter : { not: filter };
  }

  /** A literal, a property or a function of a property. `after`: the operator before it, for messages. */
  private operand(after?: Token): Operand {
    const token = this.t.next();
    const next = this.t.peek();
    const literal = next.kind === '(' || next.kind === '/' ? undefined : literalOf(token);
    if (literal) return literal;
    const keyword =
      token.kind === 'name' && KEYWORDS.has(token.text) && !Object.prototype.hasOwnProperty.call(this.object.fields, token.text);
    if (token.kind === 'name' && !keyword) {
      if (next.kind === '(') return this.functionOperand(token);
      if (next.kind === '/') throw this.navigationPath(token);
      return this.property(token);
    }
    throw this.t.error(token, `expected a property or a value${after ? ` after '${after.text}'` : ''}, got ${describe(token)}`);
  }

  private property(token: Token): PropertyOperand {
    const field = Object.prototype.hasOwnProperty.call(this.object.fields, token.text) ? this.object.fields[token.text] : undefined;
    if (!field) throw propertyError(this.src, token.text, `unknown property '${token.text}' on '${this.object.name}'`, token.pos);
    return { kind: 'property', name: token.text, field, pos: token.pos };
  }

  private functionOperand(name: Token): PropertyOperand {
    if (!OPERAND_FUNCTIONS.has(name.text)) {
      if (TEXT_FUNCTIONS.has(name.text))
        throw this.t.error(name, `${name.text}() is a condition and cannot be compared with a value other than true or false`);
      throw this.t.error(name, `function '${name.text}' is not supported; the functions are ${SUPPORTED_FUNCTIONS}`);
    }
    const fn = name.text as OperandFunction;
    const args = this.args(name);
    const arg = args[0];
    if (args.length !== 1) throw this.t.error(name, `${fn}() takes 1 argument, got ${args.length}`);
    if (arg.kind !== 'property' || arg.fn)
      throw syntaxError(this.src, arg.pos, `the argument of ${fn}() must be a property, not ${describeOperand(arg)}`);
    checkFunctionArgument(this.src, fn, arg);
    return { ...arg, fn };
  }

  /** '(' operand (',' operand)* ')' after a function name. */
  private args(name: Token): Operand[] {
    this.t.expect('(', `'(' after ${name.text}`);
    const args: Operand[] = [];
    if (this.t.peek().kind !== ')') {
      do args.push(this.operand());
      while (this.t.peek().kind === ',' && this.t.next());
    }
    this.t.expect(')', `',' or ')' in the arguments of ${name.text}()`);
    return args;
  }

  /** '(' literal (',' literal)* ')' after `in`. */
  private list(inToken: Token): LiteralOperand[] {
    this.t.expect('(', "'(' and a list of values after 'in'");
    const values: LiteralOperand[] = [];
    do {
      const token = this.t.next();
      const literal = literalOf(token);
      if (!literal) throw this.t.error(token, `expected a value in the list after '${inToken.text}', got ${describe(token)}`);
      values.push(literal);
    } while (this.t.peek().kind === ',' && this.t.next());
    this.t.expect(')', "',' or ')' in the list of values");
    return values;
  }

  private navigationPath(first: Token): Error {
    let path = first.text;
    while (this.t.peek().kind === '/') {
      this.t.next();
      const part = this.t.next();
      path += `/${part.kind === 'end' ? '' : part.text}`;
      if (part.kind !== 'name') break;
    }
    return syntaxError(
      this.src,
      first.pos,
      `navigation paths such as '${path}' are not supported; filter on this object's own properties, or inside $expand`,
    );
  }
}

function endsCondition(token: Token): boolean {
  return token.kind === 'end' || token.kind === ')' || (token.kind === 'name' && (token.text === 'and' || token.text === 'or'));
}
