/**
 * The query limits of one document, checked once per query text before graphql-js's own rules
 * (docs/graphql.md, "GraphQL query limits"): tokens and bracket nesting by one lexer pass before
 * the recursive parser runs, then depth, aliases and directives by graphql-armor's validation
 * rules. Cost and selections depend on the variables: cost.ts, per request.
 *
 * A document beyond a limit is refused with a GraphQLError whose extensions are
 * `{code: 'INVALID_REQUEST', details: {limit, max}}`, `limit` naming the option.
 */
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { GraphQLError, Lexer, Source, TokenKind, type ValidationContext, type ValidationRule } from 'graphql';
import type { GraphQLSettings } from './options';

/** What a document and its operation may ask: the plugin's options and the kernel's `limits` they depend on. */
export interface QueryLimits extends Pick<
  GraphQLSettings,
  'maxTokens' | 'maxDepth' | 'maxAliases' | 'maxDirectives' | 'maxSelections' | 'maxCost'
> {
  /** Nesting of braces, brackets and parentheses in the text: the kernel's `limits.maxJsonDepth`, as for any JSON input. */
  maxJsonDepth: number;
  /** Rows a list field counts for without `top` (the kernel's `limits.defaultTop`). */
  defaultTop: number;
  /** The most rows a list field counts for (`limits.maxTop`: a larger `top` is refused by the engine anyway). */
  maxTop: number;
}

/** The limits of the plugin's settings under the kernel's `limits`. */
export function queryLimits(settings: GraphQLSettings, kernel: Pick<QueryLimits, 'maxJsonDepth' | 'defaultTop' | 'maxTop'>): QueryLimits {
  const { maxTokens, maxDepth, maxAliases, maxDirectives, maxSelections, maxCost } = settings;
  const { maxJsonDepth, defaultTop, maxTop } = kernel;
  return { maxTokens, maxDepth, maxAliases, maxDirectives, maxSelections, maxCost, maxJsonDepth, defaultTop, maxTop };
}

export type LimitName = keyof Omit<QueryLimits, 'defaultTop' | 'maxTop'>;

/** The error of a document beyond `limit`. */
export function limitError(limit: LimitName, max: number, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'INVALID_REQUEST', details: { limit, max } } });
}

const OPEN: ReadonlySet<TokenKind> = new Set([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSE: ReadonlySet<TokenKind> = new Set([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/**
 * Refuses a document of more than `maxTokens` tokens or nested deeper than `maxJsonDepth`, reading
 * at most one token past either (the lexer does not recurse; the parser does, and overflows the
 * stack on a few thousand levels). A lexical error is left for the parser to report.
 */
export function scanDocument(query: string, limits: QueryLimits): GraphQLError | undefined {
  const lexer = new Lexer(new Source(query));
  let tokens = 0;
  let depth = 0;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      if (++tokens > limits.maxTokens)
        return limitError('maxTokens', limits.maxTokens, `The document has more than ${limits.maxTokens} tokens`);
      if (OPEN.has(token.kind) && ++depth > limits.maxJsonDepth)
        return limitError('maxJsonDepth', limits.maxJsonDepth, `The document is nested deeper than ${limits.maxJsonDepth} levels`);
      if (CLOSE.has(token.kind)) depth--;
    }
  } catch (err) {
    if (!(err instanceof GraphQLError)) throw err;
  }
  return undefined;
}

/** graphql-armor's rules for depth, aliases and directives, reporting our error instead of theirs. */
export function limitRules(limits: QueryLimits): ValidationRule[] {
  const refuse = (limit: LimitName, message: string) => ({
    exposeLimits: false,
    propagateOnRejection: false,
    onReject: [(context: ValidationContext | null) => context?.reportError(limitError(limit, limits[limit], message))],
  });
  return [
    maxDepthRule({
      n: limits.maxDepth,
      flattenFragments: true,
      ...refuse('maxDepth', `The query is nested deeper than ${limits.maxDepth} fields`),
    }),
    maxAliasesRule({ n: limits.maxAliases, ...refuse('maxAliases', `The operation has more than ${limits.maxAliases} aliases`) }),
    maxDirectivesRule({
      n: limits.maxDirectives,
      ...refuse('maxDirectives', `The operation has more than ${limits.maxDirectives} directives`),
    }),
  ] as ValidationRule[];
}
