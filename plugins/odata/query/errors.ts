/**
 * The parser's errors: the kernel's error class with the spec's codes (docs/spec.md, "Errors"), `details` in the OData form
 * (an array of {code, message, target}), so any protocol renders them and the OData service keeps
 * the details as they are.
 */
import { ObjectQLError } from '../../../kernel';

export type ODataQueryErrorCode = 'INVALID_REQUEST' | 'EXPAND_DEPTH_EXCEEDED';

export interface ODataQueryErrorDetail {
  code: ODataQueryErrorCode;
  message: string;
  /** The query option ('$filter', '$expand', ...) or the property the error is about. */
  target: string;
}

export class ODataQueryError extends ObjectQLError {
  declare readonly details: ODataQueryErrorDetail[];

  constructor(code: ODataQueryErrorCode, message: string, target: string) {
    super(code, message, [{ code, message, target }]);
    this.name = 'ODataQueryError';
  }
}

/**
 * Where a piece of query text comes from: the text of the whole option (positions count from its
 * start, 0-based), how messages name it ('$filter', "$expand: in 'customer', $filter") and the
 * detail's target ('$filter'; '$expand' for options nested in it).
 */
export interface Source {
  readonly text: string;
  readonly where: string;
  readonly target: string;
}

/** `problem at position N`, the position before a hint that follows a '; '. */
function located(src: Source, problem: string, pos: number | undefined): string {
  if (pos === undefined) return `${src.where}: ${problem}`;
  const cut = problem.indexOf('; ');
  const at = ` at position ${pos}`;
  return `${src.where}: ${cut < 0 ? problem + at : problem.slice(0, cut) + at + problem.slice(cut)}`;
}

/** A syntax error at a character position of the option's text. */
export function syntaxError(src: Source, pos: number, problem: string): ODataQueryError {
  return new ODataQueryError('INVALID_REQUEST', located(src, problem, pos), src.target);
}

/** An error about a property: the detail's target is the property. */
export function propertyError(src: Source, property: string, problem: string, pos?: number): ODataQueryError {
  return new ODataQueryError('INVALID_REQUEST', located(src, problem, pos), property);
}

/** An error about a whole option. */
export function optionError(option: string, problem: string): ODataQueryError {
  return new ODataQueryError('INVALID_REQUEST', `${option} ${problem}`, option);
}
