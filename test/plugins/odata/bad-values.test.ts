/**
 * OData: the values and query inputs every engine must treat alike (test/helpers/bad-values.ts) on
 * SQLite, PostgreSQL and MariaDB, written in OData's syntax: JSON-holding fields as JSON text,
 * conditions in $filter, keys in parentheses.
 */
import { describeBadValues, type Condition, type Door } from '../../helpers/bad-values';
import { identityHeader, startServer, type TestServer } from '../../helpers/server';

/** Fields of the sample objects that OData carries as JSON text (Edm.String). */
const JSON_FIELDS = new Set(['settings', 'receipt']);

function asODataBody(data: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, JSON_FIELDS.has(k) ? JSON.stringify(v) : v]));
}

const literal = (v: unknown) =>
  typeof v === 'string' && !/^\d{4}-\d{2}-\d{2}$/.test(v)
    ? `'${v.replace(/'/g, "''")}'`
    : typeof v === 'number'
      ? BigInt(v).toString()
      : String(v);

function filterOf([field, op, value]: Condition): string {
  if (op === 'contains') return `contains(${field},${literal(value)})`;
  return `${field} ${op === '=' ? 'eq' : 'gt'} ${literal(value)}`;
}

function odataDoor(s: TestServer): Door {
  const send = (method: string, path: string, body: unknown, user: object) =>
    s.request(method, `/odata${path}`, body, identityHeader(user));
  const key = (id: string) => `('${encodeURIComponent(id.replace(/'/g, "''"))}')`;
  return {
    create: (object, data, user) => send('POST', `/${object}`, asODataBody(data), user),
    update: (object, id, data, user) => send('PATCH', `/${object}${key(id)}`, asODataBody(data), user),
    get: (object, id, user) => send('GET', `/${object}${key(id)}`, undefined, user),
    list: (object, { filter, skip }, user) => {
      const params = new URLSearchParams();
      if (filter) params.set('$filter', filterOf(filter));
      if (skip !== undefined) params.set('$skip', String(skip));
      return send('GET', `/${object}?${params.toString()}`, undefined, user);
    },
  };
}

describeBadValues(
  'OData',
  (datasource) => startServer({ plugins: { rpc: true, odata: true }, datasources: { default: datasource } }, { identityFromHeader: true }),
  odataDoor,
);
