/**
 * GraphQL over HTTP (POST /api/graphql, plugins/graphql): the queries `x(id)` and `xList(top,
 * filters, sort, fields)` and the mutations `createX(input)`, `updateX(id, input)`, `deleteX(id)`
 * of each object `x` (naming.ts). Every request is one operation with its values in `variables`.
 *
 * Counts are `xCount(filters)` (JSON text, so a hidden and a nonexistent field reach the engine
 * alike); any over a one-to-many relation is the typed `xList(where: {<relation>: {some: ...}})`.
 *
 * What GraphQL lacks (protocol.ts's Lacks; the matrix reports each as pending):
 * - no aggregate the matrix can probe alike (`xAggregate` names fields by a typed enum and typed
 *   selections: a nonexistent field is a validation error before the engine), no bulk or action
 *   operation: those cases are left out;
 * - no lookup expand: a lookup is its id and the record is `<lookup>_record`, not mapped here;
 *   one-to-many expand maps onto the reverse list fields (`tasks(sort, filters) { ... }`);
 * - no default field set: a query answers exactly its selection set. A list or get that names no
 *   fields selects EVERY field of the object (the kernel registry's, through Client.definition),
 *   so for a user with hidden fields it is refused; the matrix's reads therefore name exactly the
 *   fields the table says the user may read and compare the answer with the truth;
 * - unknown field names: the schema is the same for every caller and names every field, hidden
 *   ones included. A hidden field reaches the engine and gets the engine's unknown-field error
 *   (INVALID_REQUEST for a read, VALIDATION_ERROR {fields: {f: 'unknown field'}} for a write); a
 *   field that does not exist never does — in a selection set it is GRAPHQL_VALIDATION_FAILED (400),
 *   in an input object BAD_USER_INPUT (400). How "a hidden field is answered as a nonexistent one"
 *   is checked, honestly:
 *   · filters and sort are JSON text: both names reach the engine alike and are compared through
 *     GraphQL, as for every protocol;
 *   · the list's selected fields go in the `fields` argument (strings, "each checked like a
 *     selected field"), with the ones the type has also in the selection set: both names reach the
 *     engine alike and are compared through GraphQL;
 *   · a get's fields and a write's input can only be typed: there the hidden field's GraphQL answer
 *     is compared with the engine's own answer to the same operation naming a nonexistent field,
 *     asked in-process as the same caller (data-cases.ts, Lacks.unknownFields).
 *
 * Outcomes: an error in `errors` maps by `extensions.code` to the kernel's status (UNAUTHORIZED
 * 401, FORBIDDEN 403, NOT_FOUND 404, VALIDATION_ERROR and INVALID_REQUEST 400 ...), its details
 * from `extensions.details`; a request refused before running (400: GRAPHQL_VALIDATION_FAILED,
 * BAD_USER_INPUT ...) keeps its HTTP status and code. `x(id)` answering null without an error is
 * the spec's answer for an absent id ("a single-record GraphQL query for an absent id returns null
 * data") and equally for a record out of the caller's scope: the adapter reports it as a 404
 * NOT_FOUND of its own making, worded the same for every id (so the matrix's "out of scope is
 * answered as absent" check compares two nulls).
 *
 * Mutations select only `id`: selecting more would make the read-back refuse (and undo) the write
 * for a user with hidden fields, and the adapter does not know the table. So the matrix's "no
 * hidden field returned by a write" check is trivially met here; what was stored is checked on
 * the store, as for every protocol.
 */
import { ERROR_CODES, isErrorCode, type ObjectDefinition } from '../../../kernel';
import { objectNames } from '../../../plugins/graphql/naming';
import { isJsonTextField } from '../../../kernel/protocol';
import { specFilter, type Client, type ListQuery, type Outcome, type ProtocolAdapter, type Rec } from '../protocol';
import type { MatrixUser } from '../users';

const PATH = '/api/graphql';

export const graphqlAdapter: ProtocolAdapter = {
  name: 'GraphQL',
  // The matrix lists up to 1000 records with their one-to-many lists (100 each by default): beyond
  // the default maxCost, which test/plugins/graphql/limits.test.ts holds the plugin to.
  plugins: { graphql: { maxCost: 1_000_000_000 } },
  connect(client: Client) {
    const definition = (object: string): ObjectDefinition => {
      const def = client.definition(object);
      if (!def) throw new Error(`GraphQL adapter: no object '${object}' in the registry`);
      return def;
    };
    /** The names the object's GraphQL type has (every field of the object). */
    const typeFields = (object: string) => Object.keys(definition(object).fields);

    /** A GraphQL record back to a record: json-like fields arrive as JSON text. */
    function record(object: string, value: any): Rec | undefined {
      if (!value || typeof value !== 'object') return undefined;
      const def = definition(object);
      const out: Rec = {};
      for (const [k, v] of Object.entries(value)) {
        const field = def.fields[k];
        out[k] = field && isJsonTextField(field) && typeof v === 'string' ? JSON.parse(v) : v;
      }
      return out;
    }
    /** Field values as an input object: json-like fields travel as JSON text. */
    function input(object: string, data: Rec): Rec {
      const def = definition(object);
      return Object.fromEntries(
        Object.entries(data).map(([k, v]) => [
          k,
          def.fields[k] && isJsonTextField(def.fields[k]) && v !== null && v !== undefined ? JSON.stringify(v) : v,
        ]),
      );
    }

    /** Sends one operation; `root` is the root field whose value `shape` turns into the Outcome. */
    async function send(
      user: MatrixUser,
      query: string,
      variables: Rec,
      root: string,
      shape: (value: any, out: Outcome) => void,
    ): Promise<Outcome> {
      const res = await client.request(user, 'POST', PATH, { query, variables });
      const body = res.body;
      const out: Outcome = { status: res.status, raw: body };
      const error = Array.isArray(body?.errors) ? body.errors[0] : undefined;
      if (error) {
        const code: string = error.extensions?.code ?? 'INTERNAL_ERROR';
        if (res.status === 200) out.status = isErrorCode(code) ? ERROR_CODES[code] : 500;
        out.error = {
          code,
          message: error.message,
          ...(error.extensions?.details !== undefined ? { details: error.extensions.details } : {}),
        };
        return out;
      }
      if (res.status !== 200 || !body?.data) return out;
      shape(body.data[root], out);
      return out;
    }

    /** The selection set: the fields asked for that the type has (default: every field). */
    const selection = (object: string, fields?: string[]) => {
      const known = typeFields(object);
      const names = fields ? fields.filter((f) => known.includes(f)) : known;
      return [...new Set(['id', ...names])].join(' ');
    };

    /**
     * One-to-many expand as the type's reverse list fields (docs/graphql.md, "Relationships"): the
     * same name, sort and filters as JSON text, the fields asked for as the selection.
     */
    const reverseLists = (object: string, expand: ListQuery['expand']) =>
      Object.entries(expand ?? {})
        .map(([name, o]) => {
          if (typeFields(object).includes(name)) throw new Error('GraphQL adapter: no lookup expand (Lacks.expand)');
          const args = [
            ...(o.sort ? [`sort: ${JSON.stringify(JSON.stringify(o.sort))}`] : []),
            ...(o.filters ? [`filters: ${JSON.stringify(JSON.stringify(specFilter(o.filters)))}`] : []),
          ];
          return `${name}${args.length ? `(${args.join(', ')})` : ''} { ${[...new Set(['id', ...(o.fields ?? [])])].join(' ')} }`;
        })
        .join(' ');

    return {
      data: {
        lacks: {
          expand: 'a lookup is its id; the related record is another field (<lookup>_record), not mapped here',
          defaultFields: 'a GraphQL query answers exactly its selection set',
          unknownFields: 'a field outside the GraphQL schema is a validation error (400) before any resolver runs',
        },
        list: (user, object, q: ListQuery = {}) => {
          const n = objectNames(object);
          const vars: Rec = {
            top: q.top ?? null,
            limit: q.limit ?? null,
            filters: q.filters ? JSON.stringify(specFilter(q.filters)) : null,
            sort: q.sort ? JSON.stringify(q.sort) : null,
            // Every name asked for reaches the engine through the `fields` argument, the schema's or not.
            fields: q.fields ?? null,
          };
          const query = `query ($top: Int, $limit: Int, $filters: String, $sort: String, $fields: [String]) { ${n.list}(top: $top, limit: $limit, filters: $filters, sort: $sort, fields: $fields) { ${selection(object, q.fields)} ${reverseLists(object, q.expand)} } }`;
          return send(user, query, vars, n.list, (value, out) => {
            out.items = (value as any[]).map((r) => record(object, r)!);
          });
        },
        get: (user, object, id, q = {}) => {
          const n = objectNames(object);
          if (q.expand) throw new Error('GraphQL adapter: no expand (Lacks.expand)');
          // No `fields` argument here: the names asked for are the selection set, as typed (an unknown one is a validation error).
          const names = q.fields ? [...new Set(['id', ...q.fields])].join(' ') : selection(object);
          const query = `query ($id: String!) { ${n.one}(id: $id) { ${names} } }`;
          return send(user, query, { id }, n.one, (value, out) => {
            if (value === null) {
              out.status = 404;
              out.error = { code: 'NOT_FOUND', message: `GraphQL answered null for ${n.one}(id): no record the caller may see` };
              return;
            }
            out.record = record(object, value);
          });
        },
        create: (user, object, data) => {
          const n = objectNames(object);
          return send(
            user,
            `mutation ($input: ${n.input}!) { ${n.create}(input: $input) { id } }`,
            { input: input(object, data) },
            n.create,
            (value, out) => {
              out.record = record(object, value);
            },
          );
        },
        update: (user, object, id, data) => {
          const n = objectNames(object);
          return send(
            user,
            `mutation ($id: String!, $input: ${n.input}!) { ${n.update}(id: $id, input: $input) { id } }`,
            { id, input: input(object, data) },
            n.update,
            (value, out) => {
              out.record = record(object, value);
            },
          );
        },
        count: (user, object, filters) => {
          const count = `${object}Count`;
          const query = `query ($filters: String) { ${count}(filters: $filters) }`;
          return send(user, query, { filters: filters ? JSON.stringify(specFilter(filters)) : null }, count, (value, out) => {
            out.count = value as number;
          });
        },
        listAny: (user, object, relation, [field, op, value]) => {
          const n = objectNames(object);
          const typedOp: Record<string, string> = { '=': 'eq', '!=': 'ne', in: 'in' };
          if (!typedOp[op]) throw new Error(`GraphQL adapter: no typed operator for '${op}'`);
          const where = { [relation]: { some: { [field]: { [typedOp[op]]: value } } } };
          const query = `query ($where: ${n.type}Filter) { ${n.list}(where: $where, top: 1000) { id } }`;
          return send(user, query, { where }, n.list, (v, out) => {
            out.items = (v as any[]).map((r) => record(object, r)!);
          });
        },
        delete: (user, object, id) => {
          const n = objectNames(object);
          return send(user, `mutation ($id: String!) { ${n.delete}(id: $id) { id deleted } }`, { id }, n.delete, (value, out) => {
            out.record = value ?? undefined;
          });
        },
      },
    };
  },
};
