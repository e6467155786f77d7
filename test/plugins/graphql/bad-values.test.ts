/**
 * GraphQL: the values and query inputs every engine must treat alike (test/helpers/bad-values.ts)
 * on SQLite, PostgreSQL and MariaDB, sent as variables (JSON-holding fields as JSON text, filters
 * as JSON text): each is a GraphQL error carrying the same code, and nothing is stored.
 */
import { describeBadValues, type Door } from '../../helpers/bad-values';
import { identityHeader, startServer, type TestServer } from '../../helpers/server';

/** Fields of the sample objects that GraphQL carries as JSON text (String). */
const JSON_FIELDS = new Set(['settings', 'receipt']);

function asInput(data: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, JSON_FIELDS.has(k) ? JSON.stringify(v) : v]));
}

const typeOf = (object: string) => object.charAt(0).toUpperCase() + object.slice(1);

function graphqlDoor(s: TestServer): Door {
  const gql = (query: string, variables: Record<string, unknown>, user: object) =>
    s.request('POST', '/api/graphql', { query, variables }, identityHeader(user));
  return {
    create: (object, data, user) =>
      gql(`mutation($input: ${typeOf(object)}Input!) { create${typeOf(object)}(input: $input) { id } }`, { input: asInput(data) }, user),
    update: (object, id, data, user) =>
      gql(
        `mutation($id: String!, $input: ${typeOf(object)}Input!) { update${typeOf(object)}(id: $id, input: $input) { id } }`,
        { id, input: asInput(data) },
        user,
      ),
    get: (object, id, user) => gql(`query($id: String!) { ${object}(id: $id) { id } }`, { id }, user),
    list: (object, { filter, skip }, user) =>
      gql(
        `query($filters: String, $skip: Int) { ${object}List(filters: $filters, skip: $skip) { id } }`,
        { filters: filter ? JSON.stringify([filter]) : null, skip: skip ?? null },
        user,
      ),
  };
}

describeBadValues(
  'GraphQL',
  (datasource) =>
    startServer({ plugins: { rpc: true, graphql: true }, datasources: { default: datasource } }, { identityFromHeader: true }),
  graphqlDoor,
  // GraphQL's input types have no id: a caller cannot choose one there.
  { idInput: false },
);
