/**
 * $apply (OData Data Aggregation Extension 4.0) → a list of steps, by recursive descent over the
 * lexer's tokens:
 *
 *   apply      := step ('/' step)*
 *   step       := 'filter' '(' boolean expression ')'
 *               | 'groupby' '(' '(' property (',' property)* ')' [',' aggregate] ')'
 *               | aggregate
 *               | ('topcount' | 'bottomcount') '(' integer ',' property ')'
 *               | 'identity'
 *   aggregate  := 'aggregate' '(' aggExpr (',' aggExpr)* ')'
 *   aggExpr    := property 'with' method 'as' alias | '$count' 'as' alias
 *   method     := 'sum' | 'average' | 'avg' | 'min' | 'max' | 'countdistinct'
 *
 * Transformation names are read without regard to case (`groupBy`, as @odata/client writes it,
 * is `groupby`); the rest is case-sensitive as in $filter. A filter before the grouping is a
 * $filter of the entity set (the same parser, the object as the caller sees it); one after it is
 * read against the grouped rows, whose properties are the grouping properties and the aliases
 * (`output`). One groupby or aggregate at most; topcount and bottomcount come after it. Navigation
 * paths, custom aggregates and the other transformations are refused, each with a message naming
 * it. Pure.
 */
import type { AggregateFunc, FieldDefinition, Filter, ObjectDefinition } from '../../../kernel';
import { JSON_VALUE_TYPES, NUMERIC_TYPES } from '../../../kernel';
import { optionError, propertyError, syntaxError, type Source } from './errors';
import { parsePlainFilter, type FilterLimits } from './filter';
import { describe, Tokens, type Token } from './lexer';

export interface ApplyAggregate {
  func: AggregateFunc;
  /** Absent for `$count`. */
  field?: string;
  alias: string;
}

export type ApplyStep =
  | { kind: 'filter'; filter: Filter; stage: 'entities' | 'groups' }
  | { kind: 'aggregate'; groupBy: string[]; aggregate: ApplyAggregate[] }
  | { kind: 'topcount' | 'bottomcount'; count: number; property: string; pos: number };

export interface ParsedApply {
  steps: ApplyStep[];
  /** Whether a groupby or aggregate is among the steps (else the result is entities). */
  aggregated: boolean;
  /**
   * What the result's rows are, as an object: the grouping properties then the aliases after a
   * groupby or aggregate (for $filter, $orderby and $select after $apply), else the object itself.
   */
  output: ObjectDefinition;
  /** The result's properties in order (grouping properties, then aliases); empty when not aggregated. */
  properties: string[];
}

export interface ApplyLimits extends FilterLimits {
  /** Most characters of the $apply text. */
  maxLength: number;
}

const METHODS: Record<string, AggregateFunc> = {
  sum: 'sum',
  average: 'avg',
  avg: 'avg',
  min: 'min',
  max: 'max',
  countdistinct: 'countdistinct',
};
const SUPPORTED = 'filter, groupby, aggregate, topcount, bottomcount and identity';
const ALIAS = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export function parseApply(text: string, object: ObjectDefinition, limits: ApplyLimits): ParsedApply {
  if (text.length > limits.maxLength) throw optionError('$apply', `is longer than ${limits.maxLength} characters`);
  const src: Source = { text, where: '$apply', target: '$apply' };
  return new ApplyParser(src, object, limits).parse();
}

class ApplyParser {
  private readonly t: Tokens;
  private readonly steps: ApplyStep[] = [];
  /** What the rows are at this point of the pipeline. */
  private current: ObjectDefinition;
  private properties: string[] = [];
  private aggregated = false;

  constructor(
    private readonly src: Source,
    private readonly object: ObjectDefinition,
    private readonly limits: ApplyLimits,
  ) {
    this.t = new Tokens(src, 0, src.text.length, { dollarNames: true });
    this.current = object;
  }

  parse(): ParsedApply {
    if (this.t.peek().kind === 'end') throw this.t.error(this.t.peek(), 'expected a transformation, got nothing');
    do this.step();
    while (this.t.peek().kind === '/' && this.t.next());
    const rest = this.t.peek();
    if (rest.kind !== 'end') throw this.t.error(rest, `expected '/' and a transformation or the end, got ${describe(rest)}`);
    return { steps: this.steps, aggregated: this.aggregated, output: this.current, properties: this.properties };
  }

  private step(): void {
    const name = this.t.next();
    if (name.kind !== 'name') throw this.t.error(name, `expected a transformation (${SUPPORTED}), got ${describe(name)}`);
    switch (name.text.toLowerCase()) {
      case 'identity':
        return;
      case 'filter':
        return this.filter(name);
      case 'groupby':
        return this.groupby(name);
      case 'aggregate':
        this.startAggregation(name);
        return this.finishAggregation([], this.aggregateBody(name));
      case 'topcount':
      case 'bottomcount':
        return this.count(name);
      default:
        throw this.t.error(name, `transformation '${name.text}' is not supported; the transformations are ${SUPPORTED}`);
    }
  }

  /** filter(expression): its text is handed to the $filter parser, against the rows as they are here. */
  private filter(name: Token): void {
    const open = this.t.expect('(', `'(' after ${name.text}`);
    let depth = 1;
    let close: Token;
    for (;;) {
      close = this.t.next();
      if (close.kind === 'end') throw this.t.error(open, `'(' of ${name.text} is not closed`);
      if (close.kind === '(') depth++;
      if (close.kind === ')' && --depth === 0) break;
    }
    const filter = parsePlainFilter(this.src, this.current, this.limits, open.pos + 1, close.pos);
    this.steps.push({ kind: 'filter', filter, stage: this.aggregated ? 'groups' : 'entities' });
  }

  private groupby(name: Token): void {
    this.startAggregation(name);
    this.t.expect('(', `'(' after ${name.text}`);
    this.t.expect('(', `'(' and a list of properties to group by, such as ${name.text}((status))`);
    const groupBy: string[] = [];
    do {
      const token = this.t.next();
      if (token.kind !== 'name') throw this.t.error(token, `expected a property to group by, got ${describe(token)}`);
      if (this.t.peek().kind === '/') throw this.navigation(token, 'groupby');
      const field = this.field(token);
      if (JSON_VALUE_TYPES.has(field.type) || field.multiple)
        throw propertyError(
          this.src,
          token.text,
          `cannot group by '${token.text}' (${field.type}${field.multiple ? ', multiple' : ''})`,
          token.pos,
        );
      if (!groupBy.includes(token.text)) groupBy.push(token.text);
    } while (this.t.peek().kind === ',' && this.t.next());
    this.t.expect(')', "',' or ')' after the properties to group by");
    let aggregate: ApplyAggregate[] = [];
    if (this.t.peek().kind === ',') {
      this.t.next();
      const inner = this.t.next();
      if (inner.kind !== 'name' || inner.text.toLowerCase() !== 'aggregate')
        throw this.t.error(
          inner,
          `expected aggregate(...) inside ${name.text}, got ${describe(inner)}; other transformations inside groupby are not supported`,
        );
      aggregate = this.aggregateBody(inner);
    }
    this.t.expect(')', `')' to close ${name.text}`);
    this.finishAggregation(groupBy, aggregate);
  }

  private startAggregation(name: Token): void {
    if (this.aggregated) throw this.t.error(name, `${name.text} after a groupby or aggregate is not supported: one grouping per $apply`);
  }

  private aggregateBody(name: Token): ApplyAggregate[] {
    this.t.expect('(', `'(' after ${name.text}`);
    const out: ApplyAggregate[] = [];
    do out.push(this.aggregateExpression());
    while (this.t.peek().kind === ',' && this.t.next());
    this.t.expect(')', `',' or ')' in ${name.text}(...)`);
    return out;
  }

  private aggregateExpression(): ApplyAggregate {
    const token = this.t.next();
    if (token.kind !== 'name') throw this.t.error(token, `expected a property or $count, got ${describe(token)}`);
    if (token.text === '$count') return { func: 'count', alias: this.alias(token) };
    if (token.text.startsWith('$')) throw this.t.error(token, `'${token.text}' cannot be aggregated; use $count or a property`);
    if (this.t.peek().kind === '/') throw this.navigation(token, 'aggregate');
    if (this.t.peek().kind === '(')
      throw this.t.error(
        token,
        `'${token.text}(' is not supported in aggregate: aggregate a property with sum, average, min, max or countdistinct`,
      );
    const field = this.field(token);
    const withToken = this.t.peek();
    if (withToken.kind !== 'name' || withToken.text !== 'with')
      throw this.t.error(
        withToken,
        `expected 'with' and an aggregation method after '${token.text}' (custom aggregates are not supported), such as ${token.text} with sum as total`,
      );
    this.t.next();
    const method = this.t.next();
    const func = method.kind === 'name' ? METHODS[method.text] : undefined;
    if (!func) throw this.t.error(method, `unknown aggregation method ${describe(method)}; use sum, average, min, max or countdistinct`);
    if ((func === 'sum' || func === 'avg') && !NUMERIC_TYPES.has(field.type))
      throw propertyError(this.src, token.text, `${method.text} needs a numeric property, '${token.text}' is ${field.type}`, token.pos);
    if (JSON_VALUE_TYPES.has(field.type) || field.multiple)
      throw propertyError(
        this.src,
        token.text,
        `cannot aggregate '${token.text}' (${field.type}${field.multiple ? ', multiple' : ''})`,
        token.pos,
      );
    return { func, field: token.text, alias: this.alias(token) };
  }

  /** `as alias` after an aggregate expression. */
  private alias(after: Token): string {
    const as = this.t.peek();
    if (as.kind !== 'name' || as.text !== 'as')
      throw this.t.error(as, `expected 'as' and an alias after the aggregate of '${after.text}', got ${describe(as)}`);
    this.t.next();
    const alias = this.t.next();
    if (alias.kind !== 'name' || !ALIAS.test(alias.text)) throw this.t.error(alias, `expected an alias (a name), got ${describe(alias)}`);
    return alias.text;
  }

  private finishAggregation(groupBy: string[], aggregate: ApplyAggregate[]): void {
    const fields: Record<string, FieldDefinition> = {};
    for (const name of groupBy) fields[name] = this.object.fields[name];
    for (const a of aggregate) {
      if (Object.prototype.hasOwnProperty.call(fields, a.alias))
        throw optionError(
          '$apply',
          `the alias '${a.alias}' is used twice (or names a grouping property); give each aggregate its own alias`,
        );
      const source = a.field === undefined ? undefined : this.object.fields[a.field];
      fields[a.alias] =
        source && (a.func === 'min' || a.func === 'max')
          ? { ...source, name: a.alias, label: a.alias, required: false }
          : { name: a.alias, type: 'number', label: a.alias };
    }
    this.steps.push({ kind: 'aggregate', groupBy, aggregate });
    this.aggregated = true;
    this.properties = Object.keys(fields);
    this.current = { ...this.object, fields };
  }

  private count(name: Token): void {
    if (!this.aggregated)
      throw this.t.error(name, `${name.text} is supported after a groupby or aggregate; on entities use $orderby and $top`);
    this.t.expect('(', `'(' after ${name.text}`);
    const n = this.t.next();
    if (n.kind !== 'number' || !Number.isSafeInteger(n.value) || (n.value as number) < 0)
      throw this.t.error(n, `expected the number of rows (a non-negative integer) in ${name.text}, got ${describe(n)}`);
    this.t.expect(',', `',' and a property after the count in ${name.text}`);
    const property = this.t.next();
    if (property.kind !== 'name') throw this.t.error(property, `expected a property or alias in ${name.text}, got ${describe(property)}`);
    this.field(property);
    this.t.expect(')', `')' to close ${name.text}`);
    this.steps.push({
      kind: name.text.toLowerCase() as 'topcount' | 'bottomcount',
      count: n.value as number,
      property: property.text,
      pos: name.pos,
    });
  }

  private field(token: Token): FieldDefinition {
    const fields = this.current.fields;
    if (!Object.prototype.hasOwnProperty.call(fields, token.text))
      throw propertyError(
        this.src,
        token.text,
        this.aggregated
          ? `unknown property '${token.text}' after the grouping; the properties are ${this.properties.join(', ')}`
          : `unknown property '${token.text}' on '${this.object.name}'`,
        token.pos,
      );
    return fields[token.text];
  }

  private navigation(first: Token, where: string): Error {
    const second = this.t.peek(1);
    return syntaxError(
      this.src,
      first.pos,
      `navigation paths such as '${first.text}/${second.kind === 'name' ? second.text : ''}' are not supported in ${where}; group and aggregate this object's own properties (a relation by its foreign key)`,
    );
  }
}
