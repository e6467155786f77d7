/** The benchmarked requests, in their JSON-RPC, REST, OData and GraphQL forms, and the data every server holds. */
export interface BenchData {
  categories: Array<{ id: string; name: string }>;
  items: Array<{ id: string; name: string; status: string; amount: number; category: string }>;
}

export function makeData(rows: number): BenchData {
  const categories = Array.from({ length: 50 }, (_, i) => ({ id: `cat-${i}`, name: `Category ${i}` }));
  const statuses = ['open', 'closed', 'archived'];
  const items = Array.from({ length: rows }, (_, i) => ({
    id: `item-${String(i).padStart(7, '0')}`,
    name: `Item ${i}`,
    status: statuses[i % 3],
    amount: (i * 37) % 1000,
    category: categories[i % categories.length].id,
  }));
  return { categories, items };
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  /** Under the protocol's prefix (the REST data route, the OData base path). */
  path: string;
  body?: unknown;
}

export interface Scenario {
  name: string;
  rpc(d: BenchData): unknown;
  /** Absent where REST has no such request (it has no count route). */
  rest?(d: BenchData): HttpRequest;
  /** Absent where OData has no such request. */
  odata?(d: BenchData): HttpRequest;
  /** The body POSTed to the GraphQL endpoint. Absent where the schema has no such request. */
  graphql?(d: BenchData): GraphQLRequest;
}

/** A GraphQL request body: {query, variables}. */
export interface GraphQLRequest {
  query: string;
  variables?: Record<string, unknown>;
}

/**
 * Object `bench_item` in the generated schema: type `Bench_item`, input `Bench_itemInput`, queries
 * `bench_item` and `bench_itemList`, mutation `createBench_item` (plugins/graphql/naming.ts).
 * Every declared field is selected, as the other protocols return whole records.
 */
const ITEM_FIELDS = 'id name status amount category';

const q = (params: Record<string, unknown>) =>
  new URLSearchParams(
    Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  ).toString();

/** OData query options, each value percent-encoded (spaces, quotes). */
const oq = (params: Record<string, string>) =>
  Object.entries(params)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&');
/** An OData key predicate: ('<id>'), a quote inside doubled. */
const okey = (id: string) => `('${encodeURIComponent(id.replace(/'/g, "''"))}')`;

const LIST = {
  filters: [
    ['status', '=', 'open'],
    ['amount', '>', 500],
  ],
  sort: [['amount', 'desc']],
  top: 20,
};
const mid = (d: BenchData) => d.items[Math.floor(d.items.length / 2)].id;
const ONE_TO_MANY = {
  top: 20,
  sort: 'name',
  expand: { bench_item_by_category: { fields: ['name', 'amount'], sort: '-amount', top: 5 } },
};
const NEW_ITEM = { name: 'New item', status: 'open', amount: 42, category: 'cat-7' };
const GROUP = {
  groupBy: ['status'],
  aggregate: [
    { func: 'count', alias: 'n' },
    { func: 'sum', field: 'amount', alias: 'total' },
  ],
};

export const SCENARIOS: Scenario[] = [
  // Filtered on `status`, sorted on `amount`: the (status, amount) index serves both, and the total.
  {
    name: 'list',
    rpc: () => ({ op: 'find', object: 'bench_item', args: LIST }),
    rest: () => ({ method: 'GET', path: `/bench_item?${q({ filter: LIST.filters, sort: 'amount desc', top: 20 })}` }),
    // $count=true: the total comes back as @odata.count, as meta.total does in the other forms.
    odata: () => ({
      method: 'GET',
      path: `/bench_item?${oq({ $filter: "status eq 'open' and amount gt 500", $orderby: 'amount desc', $top: '20', $count: 'true' })}`,
    }),
    // filters and sort are JSON-encoded strings in their array forms; the list type carries no total.
    graphql: () => ({
      query: `query List($filters: String, $sort: String, $top: Int) { bench_itemList(filters: $filters, sort: $sort, top: $top) { ${ITEM_FIELDS} } }`,
      variables: { filters: JSON.stringify(LIST.filters), sort: JSON.stringify(LIST.sort), top: LIST.top },
    }),
  },
  {
    name: 'get',
    rpc: (d) => ({ op: 'findOne', object: 'bench_item', args: mid(d) }),
    rest: (d) => ({ method: 'GET', path: `/bench_item/${mid(d)}` }),
    odata: (d) => ({ method: 'GET', path: `/bench_item${okey(mid(d))}` }),
    graphql: (d) => ({ query: `query Get($id: String!) { bench_item(id: $id) { ${ITEM_FIELDS} } }`, variables: { id: mid(d) } }),
  },
  {
    name: 'count',
    rpc: () => ({ op: 'count', object: 'bench_item', args: { filters: [['status', '=', 'closed']] } }),
    odata: () => ({ method: 'GET', path: `/bench_item/$count?${oq({ $filter: "status eq 'closed'" })}` }),
    graphql: () => ({
      query: 'query Count($where: Bench_itemFilter) { bench_itemCount(where: $where) }',
      variables: { where: { status: { eq: 'closed' } } },
    }),
  },
  {
    name: 'expand',
    rpc: () => ({
      op: 'find',
      object: 'bench_item',
      args: { top: 50, sort: [['name', 'asc']], expand: { category: { fields: ['name'] } } },
    }),
    rest: () => ({ method: 'GET', path: `/bench_item?${q({ top: 50, sort: 'name', expand: { category: { fields: ['name'] } } })}` }),
    // The relation `category` is the navigation property `category_nav` (docs/odata.md).
    odata: () => ({
      method: 'GET',
      path: `/bench_item?${oq({ $top: '50', $orderby: 'name', $expand: 'category_nav($select=name)', $count: 'true' })}`,
    }),
    // The related record is the field `category_record` beside the id (docs/graphql.md); the list carries no total.
    graphql: () => ({
      query: `query Expand($top: Int, $sort: String) { bench_itemList(top: $top, sort: $sort) { ${ITEM_FIELDS} category_record { id name } } }`,
      variables: { top: 50, sort: 'name' },
    }),
  },
  // Each category of a page with its five largest items: the one-to-many relation `bench_item_by_category`
  // (no related_name in bench/metadata), paged per category in one query.
  {
    name: 'one-to-many',
    rpc: () => ({ op: 'find', object: 'bench_category', args: ONE_TO_MANY }),
    rest: () => ({ method: 'GET', path: `/bench_category?${q({ top: 20, sort: 'name', expand: ONE_TO_MANY.expand })}` }),
    odata: () => ({
      method: 'GET',
      path: `/bench_category?${oq({ $top: '20', $orderby: 'name', $expand: 'bench_item_by_category($select=name,amount;$orderby=amount desc;$top=5)', $count: 'true' })}`,
    }),
    graphql: () => ({
      query:
        'query OneToMany { bench_categoryList(top: 20, sort: "name") { id name bench_item_by_category(top: 5, sort: "-amount") { id name amount } } }',
    }),
  },
  {
    name: 'group-by',
    rpc: () => ({ op: 'find', object: 'bench_item', args: GROUP }),
    rest: () => ({ method: 'GET', path: `/bench_item?${q({ groupBy: 'status', aggregate: GROUP.aggregate })}` }),
    odata: () => ({
      method: 'GET',
      path: `/bench_item?${oq({ $apply: 'groupby((status),aggregate($count as n,amount with sum as total))' })}`,
    }),
    graphql: () => ({ query: '{ bench_itemAggregate(groupBy: [status]) { group { status } count sum { amount } } }' }),
  },
  {
    name: 'create',
    rpc: () => ({ op: 'create', object: 'bench_item', args: NEW_ITEM }),
    rest: () => ({ method: 'POST', path: '/bench_item', body: NEW_ITEM }),
    odata: () => ({ method: 'POST', path: '/bench_item', body: NEW_ITEM }),
    graphql: () => ({
      query: `mutation Create($input: Bench_itemInput!) { createBench_item(input: $input) { ${ITEM_FIELDS} } }`,
      variables: { input: NEW_ITEM },
    }),
  },
];
