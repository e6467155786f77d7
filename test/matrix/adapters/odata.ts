/**
 * OData V4 under /odata: entity sets, entities by key, $count, $filter, $orderby, $select,
 * $expand (through navigation properties, mapped back onto the relation field here; one-to-many
 * ones by the relation's name), $top and $count=true for the total; aggregates as $apply
 * (filter()/groupby((...),aggregate(...))). A filter through a to-one relation (`project.name`) is
 * a navigation path (`project_nav/name`), any over a one-to-many relation a lambda
 * (`tasks/any(x: x/id eq 'a')`). It has no bulk or action route (skipped). Errors are
 * OData's {error: {code, message, details: [...], innererror}}: the kernel's details object
 * (required_permission, user_roles, fields ...) is innererror, which the checks read as details.
 *
 * Describing is $metadata (parsed as XML): the entity types and their properties a user is shown.
 * OData has no document per object, so `object` reads the entity type out of $metadata and
 * answers a type that is not there (unknown, or hidden from the user) as a 404 of its own making.
 */
import type { ObjectDefinition } from '../../../kernel';
import { parseEdmx, type Edm } from '../../plugins/odata/helpers';
import {
  outcomeOf,
  type AggregateQuery,
  type Client,
  type Condition,
  type ListQuery,
  type Outcome,
  type ProtocolAdapter,
  type Rec,
} from '../protocol';
import type { MatrixUser } from '../users';

const BASE = '/odata';
const NAV = '_nav';

const OPERATORS: Record<string, string> = { '=': 'eq', '!=': 'ne', '>': 'gt', '>=': 'ge', '<': 'lt', '<=': 'le' };

function literal(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  // OData has no literal for an object (an attachment): written as JSON, it is refused as such.
  return JSON.stringify(value);
}

/** `project.name` → `project_nav/name`. */
function path(field: string): string {
  const parts = field.split('.');
  return [...parts.slice(0, -1).map((p) => p + NAV), parts[parts.length - 1]].join('/');
}

/** One condition; `variable`: inside a lambda, the properties are the variable's. */
function condition([dotted, op, value]: Condition, variable?: string): string {
  const field = variable ? `${variable}/${path(dotted)}` : path(dotted);
  if (op === 'in') return `(${(value as unknown[]).map((v) => `${field} eq ${literal(v)}`).join(' or ')})`;
  if (op === 'contains' || op === 'startswith' || op === 'endswith') return `${op}(${field},${literal(value)})`;
  const o = OPERATORS[op];
  if (!o) throw new Error(`OData adapter: no $filter form for '${op}'`);
  return `${field} ${o} ${literal(value)}`;
}

const filter = (conditions: Condition[]) => conditions.map((c) => condition(c)).join(' and ');

/** An aggregate query as $apply: filter() before the grouping, then groupby or aggregate. */
function applyOption(q: AggregateQuery): string {
  const aggregates = q.aggregate
    .map((a) => (a.field === undefined ? `$count as ${a.alias}` : `${a.field} with ${a.func === 'avg' ? 'average' : a.func} as ${a.alias}`))
    .join(',');
  const grouping = q.groupBy?.length
    ? `groupby((${q.groupBy.join(',')})${aggregates ? `,aggregate(${aggregates})` : ''})`
    : `aggregate(${aggregates})`;
  return [q.filters?.length ? `filter(${filter(q.filters)})` : undefined, grouping].filter(Boolean).join('/');
}
const orderby = (sort: NonNullable<ListQuery['sort']>) => sort.map(([f, d]) => `${f} ${d}`).join(',');

/** A lookup field expands by its navigation property, a one-to-many relation by its name. */
function expandOption(def: ObjectDefinition | undefined, expand: NonNullable<ListQuery['expand']>): string {
  return Object.entries(expand)
    .map(([field, o]) => {
      const nested = [
        o.fields && `$select=${o.fields.join(',')}`,
        o.filters && `$filter=${filter(o.filters)}`,
        o.sort && `$orderby=${orderby(o.sort)}`,
      ].filter(Boolean);
      const nav = def?.fields[field] ? field + NAV : field;
      return `${nav}${nested.length ? `(${nested.join(';')})` : ''}`;
    })
    .join(',');
}

/** The spec's error body from OData's: the kernel's details (innererror) when there are any, else OData's details. */
function outcome(status: number, body: any): Outcome {
  const out = outcomeOf(status, body);
  if (out.error) out.error = { code: body.error.code, message: body.error.message, details: body.error.innererror ?? body.error.details };
  return out;
}

export const odataAdapter: ProtocolAdapter = {
  name: 'OData',
  plugins: { odata: true },
  connect(client: Client) {
    const e = encodeURIComponent;
    const key = (id: string) => `('${e(id.replace(/'/g, "''"))}')`;
    /** $metadata as each user sees it, read once per user (connect is called once per matrix server). */
    const documents = new Map<string, Promise<{ status: number; body: any; edm?: Edm }>>();
    const metadata = (user: MatrixUser) => {
      let doc = documents.get(user.name);
      if (!doc) {
        doc = client
          .request(user, 'GET', `${BASE}/$metadata`)
          .then((res) => ({ ...res, edm: res.status === 200 ? parseEdmx(res.body) : undefined }));
        documents.set(user.name, doc);
      }
      return doc;
    };

    /** An entity back to a record: no annotations, JSON text parsed, expanded navigation properties back under their field. */
    function record(edm: Edm | undefined, type: string, entity: any): Rec {
      const t = edm?.types[type];
      const out: Rec = {};
      for (const [k, v] of Object.entries(entity)) {
        if (k.includes('@')) continue;
        if (t?.navigations[k]) {
          const target = t.navigations[k].type
            .replace(/^Collection\((.*)\)$/, '$1')
            .split('.')
            .pop()!;
          out[k.endsWith(NAV) ? k.slice(0, -NAV.length) : k] = Array.isArray(v)
            ? v.map((x) => record(edm, target, x))
            : v === null
              ? null
              : record(edm, target, v);
          continue;
        }
        if (k in out) continue;
        out[k] = t?.properties[k]?.json && typeof v === 'string' ? JSON.parse(v) : v;
      }
      return out;
    }

    async function send(
      user: MatrixUser,
      object: string,
      method: string,
      path: string,
      body: unknown,
      shape?: (body: any, edm: Edm | undefined, out: Outcome) => void,
    ): Promise<Outcome> {
      const res = await client.request(user, method, `${BASE}/${object}${path}`, body);
      const out = outcome(res.status, res.body);
      if (res.status < 300 && shape) shape(res.body, (await metadata(user)).edm, out);
      return out;
    }
    const qs = (params: Record<string, string | undefined>) => {
      const s = new URLSearchParams(Object.entries(params).filter((p): p is [string, string] => p[1] !== undefined)).toString();
      return s ? `?${s}` : '';
    };

    return {
      data: {
        lacks: {
          limit: 'OData pages with $top only: the spec keeps limit for REST and GraphQL',
        },
        list: (user, object, q = {}) =>
          send(
            user,
            object,
            'GET',
            qs({
              $filter: q.filters && filter(q.filters),
              $orderby: q.sort && orderby(q.sort),
              $select: q.fields?.join(','),
              $expand: q.expand && expandOption(client.definition(object), q.expand),
              $top: q.top === undefined ? undefined : String(q.top),
              $count: 'true',
            }),
            undefined,
            (body, edm, out) => {
              out.items = body.value.map((x: any) => record(edm, object, x));
              out.total = body['@odata.count'];
            },
          ),
        get: (user, object, id, q = {}) =>
          send(
            user,
            object,
            'GET',
            `${key(id)}${qs({ $select: q.fields?.join(','), $expand: q.expand && expandOption(client.definition(object), q.expand) })}`,
            undefined,
            (body, edm, out) => {
              out.record = record(edm, object, body);
            },
          ),
        listAny: (user, object, relation, [field, op, value]) =>
          send(
            user,
            object,
            'GET',
            qs({ $filter: `${relation}/any(x: ${condition([field, op, value], 'x')})`, $top: '1000' }),
            undefined,
            (body, edm, out) => {
              out.items = body.value.map((x: any) => record(edm, object, x));
            },
          ),
        count: (user, object, filters) =>
          send(user, object, 'GET', `/$count${qs({ $filter: filters && filter(filters) })}`, undefined, (body, _edm, out) => {
            out.count = Number(body);
          }),
        aggregate: (user, object, q) =>
          send(user, object, 'GET', qs({ $apply: applyOption(q) }), undefined, (body, _edm, out) => {
            out.items = body.value;
          }),
        create: (user, object, data) =>
          send(user, object, 'POST', '', data, (body, edm, out) => void (out.record = record(edm, object, body))),
        update: (user, object, id, data) =>
          send(user, object, 'PATCH', key(id), data, (body, edm, out) => void (out.record = record(edm, object, body))),
        delete: (user, object, id) => send(user, object, 'DELETE', key(id), undefined),
      },
      describe: {
        async objects(user) {
          const res = await metadata(user);
          const out = outcome(res.status, res.body);
          if (res.edm)
            out.described = Object.fromEntries(Object.entries(res.edm.types).map(([name, t]) => [name, Object.keys(t.properties)]));
          return out;
        },
        async object(user, object) {
          const res = await metadata(user);
          const type = res.edm?.types[object];
          if (res.edm && !type)
            return { status: 404, error: { code: 'NOT_FOUND', message: `No entity type '${object}' in $metadata` }, raw: res.body };
          const out = outcome(res.status, res.body);
          if (type) out.fields = Object.keys(type.properties);
          return out;
        },
      },
    };
  },
};
