/**
 * The OData V4 query options as a pure mapping: `$filter`, `$select`, `$orderby`, `$top`, `$skip`,
 * `$count`, `$expand` (nested options) and `$search` → the engine's find options. No HTTP.
 */
export { parseODataQuery, QUERY_OPTIONS, SERVICE_OPTIONS, DEFAULT_FILTER_LIMITS } from './parse-query';
export type { ODataNavigation, ODataQuery, ODataQuerySettings, ODataQueryTarget } from './types';
export { ODataQueryError, type ODataQueryErrorCode, type ODataQueryErrorDetail } from './errors';
export { parseFilterExpression, type FilterLimits } from './filter';
export { parseSearch, searchableFields } from './search';
