/**
 * Server-driven paging (OData 4.0 Part 1, 11.2.5.7 and 8.2.8.5): how many entities (or groups of
 * $apply) one response holds, and where the rest is. The page is the smallest of the client's
 * $top, its `Prefer: odata.maxpagesize=N` and the service's cap (the plugin's `maxPageSize`,
 * default limits.maxTop); without $top or a preference, limits.defaultTop (under the cap). When
 * the page cut what the client asked for, `@odata.nextLink` repeats the request with `$skip`
 * moved past this page (and `$top` lowered by it when one was given): following it gives the
 * next page of the same query. Pure.
 */

export interface PageLimits {
  /** Page size of a request without $top or preference (limits.defaultTop). */
  defaultTop: number;
  /** The service's cap (maxPageSize). */
  cap: number;
}

export interface PagePlan {
  /** What to ask the engine for. */
  top: number;
  /** `Preference-Applied` value, when the client sent odata.maxpagesize. */
  applied?: string;
}

/** `odata.maxpagesize=N` (or 4.01's `maxpagesize=N`) of a Prefer header; undefined when absent or not a positive integer. */
export function preferredPageSize(prefer: string | undefined): number | undefined {
  const m = /(?:^|[,;\s])(?:odata\.)?maxpagesize\s*=\s*"?(\d{1,9})"?/i.exec(prefer ?? '');
  const n = m ? Number(m[1]) : 0;
  return n > 0 ? n : undefined;
}

export function pagePlan(clientTop: number | undefined, prefer: string | undefined, limits: PageLimits): PagePlan {
  const preferred = preferredPageSize(prefer);
  const size = Math.min(preferred ?? (clientTop === undefined ? limits.defaultTop : Number.MAX_SAFE_INTEGER), limits.cap);
  return {
    top: clientTop === undefined ? size : Math.min(clientTop, size),
    ...(preferred !== undefined ? { applied: `odata.maxpagesize=${Math.min(preferred, limits.cap)}` } : {}),
  };
}

/**
 * The query of the next page, or undefined when this one holds the rest of what was asked:
 * `query` is the request's (without $format changes), `skip`/`top` the client's, `got` this page's
 * length and `total` how many match in all.
 */
export function nextPageQuery(query: string, client: { skip?: number; top?: number }, got: number, total: number): string | undefined {
  const skip = client.skip ?? 0;
  const end = client.top === undefined ? total : Math.min(total, skip + client.top);
  if (got === 0 || skip + got >= end) return undefined;
  const next = new URLSearchParams(query);
  next.set('$skip', String(skip + got));
  if (client.top !== undefined) next.set('$top', String(client.top - got));
  return next.toString();
}
