/**
 * Array-batched requests (docs/graphql.md, "Batched requests"), as Apollo's BatchHttpLink sends
 * them: a POST whose JSON body is an array of operations is answered with a JSON array of their
 * results, in order, HTTP 200. Each operation is run exactly as if it had been sent alone (its
 * parameters, persisted-query hash, limits, cost and permissions; `before` lets the caller count
 * it as a request of its own, the rate limiter included), one after the other; an operation that
 * alone would have been refused gets that refusal's errors as its result. A batch that is empty,
 * larger than `batching.maxBatchSize`, or sent while batching is off is refused as a whole: 400.
 */
import type { BatchSettings } from './options';
import type { GraphQLHttpResponse } from './execute';

export interface BatchResponse {
  status: number;
  body: Array<GraphQLHttpResponse['body']>;
}

/** Why the batch is refused as a whole, or undefined. */
export function batchProblem(items: readonly unknown[], settings: BatchSettings): GraphQLHttpResponse | undefined {
  if (!settings) return refuse('Batched requests (a JSON array of operations) are not enabled here: send one operation per request');
  if (items.length === 0) return refuse('A batch must hold at least one operation');
  if (items.length > settings.maxBatchSize)
    return refuse(`A batch may hold at most ${settings.maxBatchSize} operations, got ${items.length}`, {
      limit: 'batching.maxBatchSize',
      max: settings.maxBatchSize,
    });
  return undefined;
}

/**
 * Runs each operation in turn. `before(i)` runs first for every operation but the first (which
 * the request itself accounted for); an answer it gives stands for that operation's result.
 */
export async function executeBatch(
  items: readonly unknown[],
  run: (item: unknown) => Promise<GraphQLHttpResponse>,
  before: () => Promise<GraphQLHttpResponse | undefined>,
): Promise<BatchResponse> {
  const body: BatchResponse['body'] = [];
  for (const [i, item] of items.entries()) {
    const refused = i > 0 ? await before() : undefined;
    body.push((refused ?? (await run(item))).body);
  }
  return { status: 200, body };
}

function refuse(message: string, details?: unknown): GraphQLHttpResponse {
  const extensions = details === undefined ? { code: 'INVALID_REQUEST' } : { code: 'INVALID_REQUEST', details };
  return { status: 400, body: { errors: [{ message, extensions }] } };
}
