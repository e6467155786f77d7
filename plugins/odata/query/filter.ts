/**
 * $filter → the kernel's filter AST, by recursive descent over the lexer's tokens:
 *
 *   or      := and ('or' and)*
 *   and     := unary ('and' unary)*
 *   unary   := 'not' unary | primary
 *   primary := '(' or ')'
 *            | path '/' ('any' | 'all') '(' [variable ':' or] ')' [('eq' | 'ne') ('true' | 'false')]
 *            | textfn '(' args ')' [('eq' | 'ne') ('true' | 'false')]
 *            | operand (('eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le') operand | 'in' '(' literal (',' literal)* ')')
 *            | boolean property | 'true' | 'false'
 *   operand := literal | path | ('length' | 'tolower' | 'toupper') '(' path ')'
 *   path    := [variable '/'] (navigation '/')* property
 *
 * Precedence is OData's: not, then and, then or; `not` takes the comparison after it
 * (`not price gt 5` is `not (price gt 5)`). Keywords are lower case, as OData writes them.
 * Properties are checked against the object as the caller sees it (the target's object: an
 * unknown property and one the caller may not read get the same error).
 *
 * Navigation (with a navigation lookup in the context, query/navigation.ts): a path through
 * to-one navigation properties (`project_nav/account_nav/name eq 'x'`) becomes the kernel's
 * RelationCondition `{relation: 'project', quantifier: 'any', filter: ...}` around the condition;
 * `tasks/any(t: t/status eq 'done')`, `tasks/all(t: ...)` and `tasks/any()` over a collection
 * navigation property become `{relation: 'tasks', quantifier, filter}`; over a multiple-valued
 * property (`tags/any(t: t eq 'red')`) they become membership conditions (query/lambda.ts). Inside
 * a lambda every property is written through its variable (`t/status`): a condition on the outer
 * record goes outside the lambda. Each condition follows at most `maxNavigationDepth` navigation
 * properties, lambdas included. Arithmetic and functions other than contains, startswith,
 * endswith, length, tolower and toupper are refused with a message naming them.
 */
import type { FieldDefinition, Filter, ObjectDefinition, RelationCondition, RequestFilter } from '../../../kernel';
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
import { valueLambda } from './lambda';
import { describe, Tokens, type Token } from './lexer';
import { DEFAULT_NAVIGATION_DEPTH, followToOne, notNavigation, through, type FollowedPath, type NavigationLookup } from './navigation';

export interface FilterLimits {
  /** Deepest nesting of parentheses, `not` and lambdas. */
  maxDepth: number;
  /** Most conditions in one filter. */
  maxConditions: number;
}

/** The limits, and what navigation paths and lambdas may follow (refused without `navigation`). */
export interface FilterContext extends FilterLimits {
  navigation?: NavigationLookup;
  /** Most navigation properties one condition follows, lambdas included (default 3). */
  maxNavigationDepth?: number;
}

const OPERAND_FUNCTIONS: ReadonlySet<string> = new Set<OperandFunction>(['length', 'tolower', 'toupper']);
const UNSUPPORTED_OPERATORS = new Set(['has', 'add', 'sub', 'mul', 'div', 'divby', 'mod']);
/** Words that cannot start an operand (unless the object has a property of that name). */
const KEYWORDS = new Set(['and', 'or', ...COMPARISONS, 'in', ...UNSUPPORTED_OPERATORS]);
const SUPPORTED_FUNCTIONS = 'contains, startswith, endswith, length, tolower and toupper';
const LAMBDAS = new Set(['any', 'all']);

/** Where names are read: the object, and inside a lambda its variable. */
interface Scope {
  object: ObjectDefinition;
  variable?: string;
  /** In a lambda over a multiple-valued property: that property, read as one value. */
  element?: FieldDefinition;
  /** Navigation properties followed to get here. */
  hops: number;
  outer?: Scope;
}

/** Parses a $filter (or the part of a text between start and end) against an object. */
export function parseFilterExpression(
  src: Source,
  object: ObjectDefinition,
  limits: FilterContext,
  start = 0,
  end = src.text.length,
): RequestFilter {
  return new FilterParser(new Tokens(src, start, end), object, limits).parse();
}

/**
 * A $filter that follows no navigation property (about rows without relations, such as the
 * grouped rows of $apply): the kernel's plain Filter. Paths and lambdas over navigation are refused.
 */
export function parsePlainFilter(src: Source, object: ObjectDefinition, limits: FilterLimits, start = 0, end = src.text.length): Filter {
  // Without a navigation lookup the parser makes no relation condition.
  return parseFilterExpression(src, object, { maxDepth: limits.maxDepth, maxConditions: limits.maxConditions }, start, end) as Filter;
}

class FilterParser {
  private depth = 0;
  private conditions = 0;
  private readonly src: Source;
  private scope: Scope;
  private readonly maxHops: number;

  constructor(
    private readonly t: Tokens,
    object: ObjectDefinition,
    private readonly limits: FilterContext,
  ) {
    this.src = t.src;
    this.scope = { object, hops: 0 };
    this.maxHops = limits.maxNavigationDepth ?? DEFAULT_NAVIGATION_DEPTH;
  }

  parse(): RequestFilter {
    if (this.t.peek().kind === 'end') throw this.t.error(this.t.peek(), 'expected an expression, got nothing');
    const filter = this.or();
    const rest = this.t.peek();
    if (rest.kind !== 'end') {
      const hint = rest.kind === ')' ? "a ')' without its '('" : describe(rest);
      throw this.t.error(rest, `expected 'and', 'or' or the end of the expression, got ${hint}`);
    }
    return filter;
  }

  private or(): RequestFilter {
    const parts = [this.and()];
    while (this.t.acceptName('or')) parts.push(this.and());
    return parts.length === 1 ? parts[0] : { or: parts };
  }

  private and(): RequestFilter {
    const parts = [this.unary()];
    while (this.t.acceptName('and')) parts.push(this.unary());
    return parts.length === 1 ? parts[0] : { and: parts };
  }

  private unary(): RequestFilter {
    const token = this.t.peek();
    if (token.kind === 'name' && token.text === 'not' && this.t.peek(1).kind !== '/') {
      this.t.next();
      return this.nested(token, () => ({ not: this.unary() }));
    }
    return this.primary();
  }

  private nested(at: Token, fn: () => RequestFilter): RequestFilter {
    if (++this.depth > this.limits.maxDepth) throw this.t.error(at, `the expression is nested deeper than ${this.limits.maxDepth} levels`);
    const result = fn();
    this.depth--;
    return result;
  }

  private count<T extends RequestFilter>(filter: T, at: Token): T {
    if (++this.conditions > this.limits.maxConditions)
      throw this.t.error(at, `the expression has more than ${this.limits.maxConditions} conditions`);
    return filter;
  }

  private primary(): RequestFilter {
    const token = this.t.peek();
    if (token.kind === '(') {
      this.t.next();
      return this.nested(token, () => {
        const inner = this.or();
        this.t.expect(')', `')' to close the '(' at position ${token.pos}`);
        return inner;
      });
    }
    if (this.lambdaAhead()) return this.lambda();
    if (token.kind === 'name' && TEXT_FUNCTIONS.has(token.text) && this.t.peek(1).kind === '(') {
      this.t.next();
      const args = this.args(token);
      const filter = this.count(this.through(textFunction(this.src, token.text as TextFunction, args, token), args, token), token);
      return this.booleanComparison(filter, token);
    }
    const left = this.operand();
    const opToken = this.t.peek();
    if (opToken.kind === 'name' && COMPARISONS.has(opToken.text)) {
      this.t.next();
      const right = this.operand(opToken);
      return this.count(
        this.through(comparison(this.src, left, opToken.text as Comparison, right, opToken), [left, right], opToken),
        opToken,
      );
    }
    if (opToken.kind === 'name' && opToken.text === 'in') {
      this.t.next();
      if (left.kind !== 'property') throw this.t.error(opToken, `'in' needs a property on its left, not ${describeOperand(left)}`);
      return this.count(this.through(membership(this.src, left, this.list(opToken), opToken), [left], opToken), opToken);
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
  private standalone(operand: Operand): RequestFilter {
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
    return through(operand.path ?? [], { field: operand.name, op: 'eq', value: true });
  }

  /** After contains(...), any(...) and the like: an optional `eq true`, `eq false`, `ne true`, `ne false`. */
  private booleanComparison(filter: RequestFilter, fn: Token): RequestFilter {
    const op = this.t.peek();
    if (op.kind !== 'name' || !COMPARISONS.has(op.text)) return filter;
    this.t.next();
    const value = this.t.next();
    if ((op.text !== 'eq' && op.text !== 'ne') || value.kind !== 'name' || (value.text !== 'true' && value.text !== 'false')) {
      throw this.t.error(op, `${fn.text}() can only be compared with eq or ne and true or false`);
    }
    return (op.text === 'eq') === (value.text === 'true') ? filter : { not: filter };
  }

  /**
   * A condition on properties reached through to-one relations, wrapped in those relations.
   * Two properties compared must belong to the same record.
   */
  private through(filter: RequestFilter, operands: Operand[], at: Token): RequestFilter {
    const properties = operands.filter((o): o is PropertyOperand => o.kind === 'property');
    if (properties.length === 0) return filter;
    const path = properties[0].path ?? [];
    for (const other of properties.slice(1)) {
      const otherPath = other.path ?? [];
      if (otherPath.length !== path.length || otherPath.some((r, i) => r !== path[i]))
        throw propertyError(
          this.src,
          other.name,
          `${describeOperand(properties[0])} and ${describeOperand(other)} belong to different records; a condition can compare properties of one record only`,
          at.pos,
        );
    }
    return path.length ? through(path, filter) : filter;
  }

  /** A literal, a property (or a path to one) or a function of one. `after`: the operator before it, for messages. */
  private operand(after?: Token): Operand {
    const token = this.t.next();
    const next = this.t.peek();
    const literal = next.kind === '(' || next.kind === '/' ? undefined : literalOf(token);
    if (literal) return literal;
    const keyword =
      token.kind === 'name' &&
      KEYWORDS.has(token.text) &&
      token.text !== this.scope.variable &&
      !Object.prototype.hasOwnProperty.call(this.scope.object.fields, token.text);
    if (token.kind === 'name' && !keyword) {
      if (next.kind === '(') return this.functionOperand(token);
      return this.path(token);
    }
    throw this.t.error(token, `expected a property or a value${after ? ` after '${after.text}'` : ''}, got ${describe(token)}`);
  }

  /** `first` and the `/name` segments after it. */
  private segments(first: Token): Token[] {
    const segments = [first];
    while (this.t.peek().kind === '/') {
      this.t.next();
      const part = this.t.next();
      if (part.kind !== 'name') throw this.t.error(part, `expected a property after '/', got ${describe(part)}`);
      if (LAMBDAS.has(part.text) && this.t.peek().kind === '(')
        throw this.t.error(part, `${part.text}(...) is a condition; it cannot be compared or used as a value`);
      segments.push(part);
    }
    return segments;
  }

  /** A property, or a path to one through to-one navigation properties; in a lambda, through its variable. */
  private path(first: Token): PropertyOperand {
    const segments = this.segments(first);
    const written = segments.map((s) => s.text).join('/');
    const rest = this.afterVariable(segments);
    const { element, variable } = this.scope;
    if (rest.length === 0) {
      if (!element)
        throw propertyError(
          this.src,
          first.text,
          `'${variable}' stands for a ${this.scope.object.name} record: compare one of its properties (${variable}/<property>)`,
          first.pos,
        );
      return { kind: 'property', name: element.name, field: element, pos: first.pos, written };
    }
    if (element)
      throw propertyError(
        this.src,
        rest[0].text,
        `'${variable}' stands for one value of '${element.name}' and has no properties`,
        rest[0].pos,
      );
    const last = rest[rest.length - 1];
    const followed = this.follow(rest.slice(0, -1), this.scope.hops);
    const object = followed.object;
    const field = Object.prototype.hasOwnProperty.call(object.fields, last.text) ? object.fields[last.text] : undefined;
    if (!field) throw propertyError(this.src, last.text, `unknown property '${last.text}' on '${object.name}'`, last.pos);
    const operand: PropertyOperand = { kind: 'property', name: last.text, field, pos: first.pos };
    if (followed.relations.length) operand.path = followed.relations;
    if (segments.length > 1) operand.written = written;
    return operand;
  }

  /** Inside a lambda: the segments after its variable (which they must start with). */
  private afterVariable(segments: Token[]): Token[] {
    const { variable } = this.scope;
    if (variable === undefined) return segments;
    const first = segments[0];
    if (first.text === variable) return segments.slice(1);
    let outer = this.scope.outer;
    while (outer && outer.variable !== first.text) outer = outer.outer;
    throw propertyError(
      this.src,
      first.text,
      outer
        ? `'${first.text}' is the variable of an enclosing lambda; a condition inside a lambda can only use its own variable '${variable}'`
        : `inside a lambda, properties are written through its variable ('${variable}/${first.text}'); conditions on the outer record go outside the lambda`,
      first.pos,
    );
  }

  /** To-one navigation segments from the scope's object. */
  private follow(segments: Token[], used: number): FollowedPath {
    if (segments.length && !this.limits.navigation) {
      throw syntaxError(
        this.src,
        segments[0].pos,
        `navigation paths such as '${segments[0].text}/…' are not supported here; filter on this object's own properties`,
      );
    }
    return followToOne(this.src, this.scope.object, segments, this.limits.navigation, this.maxHops, used);
  }

  /** Whether the tokens ahead are `path/any(` or `path/all(`. */
  private lambdaAhead(): boolean {
    if (this.t.peek().kind !== 'name') return false;
    let k = 0;
    while (this.t.peek(k + 1).kind === '/' && this.t.peek(k + 2).kind === 'name') k += 2;
    return k > 0 && LAMBDAS.has(this.t.peek(k).text) && this.t.peek(k + 1).kind === '(';
  }

  /** `collection/any(v: condition)`, `collection/all(v: condition)` or `collection/any()`. */
  private lambda(): RequestFilter {
    const segments = [this.t.next()];
    while (this.t.peek().kind === '/') {
      this.t.next();
      segments.push(this.t.next());
    }
    const op = segments.pop()!;
    const quantifier = op.text as 'any' | 'all';
    const rest = this.afterVariable(segments);
    if (rest.length === 0)
      throw propertyError(
        this.src,
        segments[0].text,
        `'${segments[0].text}' is not a collection; ${quantifier}() applies to collections`,
        op.pos,
      );
    if (this.scope.element)
      throw propertyError(
        this.src,
        rest[0].text,
        `'${this.scope.variable}' stands for one value of '${this.scope.element.name}' and has no properties`,
        rest[0].pos,
      );
    const collection = rest[rest.length - 1];
    const followed = this.follow(rest.slice(0, -1), this.scope.hops);
    const hops = this.scope.hops + followed.relations.length;
    const object = followed.object;
    const nav = this.limits.navigation?.(object, collection.text);
    const field = Object.prototype.hasOwnProperty.call(object.fields, collection.text) ? object.fields[collection.text] : undefined;
    let filter: RequestFilter;
    if (nav && nav.kind !== 'one') {
      if (hops + 1 > this.maxHops)
        throw propertyError(
          this.src,
          collection.text,
          `the condition follows more than ${this.maxHops} navigation properties (the service's maxExpandDepth)`,
          collection.pos,
        );
      const { body } = this.lambdaBody(op, { object: nav.target, hops: hops + 1, outer: this.scope });
      const condition: RelationCondition = { relation: nav.relation, quantifier };
      if (body) condition.filter = body;
      filter = condition;
    } else if (nav) {
      throw propertyError(
        this.src,
        collection.text,
        `'${collection.text}' is a single ${nav.target.name} record, not a collection: compare its properties as ${collection.text}/<property>, without ${quantifier}()`,
        collection.pos,
      );
    } else if (field?.multiple) {
      const element: FieldDefinition = { ...field, multiple: false };
      const { variable, body } = this.lambdaBody(op, { object, element, hops, outer: this.scope });
      filter = valueLambda(this.src, field, quantifier, variable, body, op);
    } else if (field) {
      throw propertyError(
        this.src,
        collection.text,
        `'${collection.text}' is a single value, not a collection: ${quantifier}() applies to collection navigation properties and multiple-valued properties`,
        collection.pos,
      );
    } else {
      throw notNavigation(this.src, object, collection);
    }
    return this.booleanComparison(this.count(through(followed.relations, filter), op), op);
  }

  /** `(` [variable `:` condition] `)` after any / all, the condition read in `scope` (its variable set here). */
  private lambdaBody(op: Token, scope: Scope): { variable?: string; body?: RequestFilter } {
    this.t.expect('(', `'(' after ${op.text}`);
    if (this.t.peek().kind === ')') {
      this.t.next();
      if (op.text === 'all') throw this.t.error(op, 'all() needs a condition: all(x: <condition on x>)');
      return {};
    }
    const variable = this.t.next();
    if (variable.kind !== 'name' || KEYWORDS.has(variable.text) || LAMBDAS.has(variable.text))
      throw this.t.error(variable, `expected the lambda's variable (a name such as 'x' in ${op.text}(x: ...)), got ${describe(variable)}`);
    for (let s: Scope | undefined = this.scope; s; s = s.outer)
      if (s.variable === variable.text)
        throw this.t.error(variable, `the variable '${variable.text}' is already used by an enclosing lambda; give this one another name`);
    this.t.expect(':', `':' after the lambda's variable '${variable.text}'`);
    const outer = this.scope;
    this.scope = { ...scope, variable: variable.text };
    const body = this.nested(op, () => this.or());
    this.scope = outer;
    this.t.expect(')', `')' to close ${op.text}(`);
    return { variable: variable.text, body };
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
}

function endsCondition(token: Token): boolean {
  return token.kind === 'end' || token.kind === ')' || (token.kind === 'name' && (token.text === 'and' || token.text === 'or'));
}
