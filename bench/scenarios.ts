/**
 * The benchmarked requests, in their JSON-RPC, REST, OData and GraphQL forms and in the peers' (SAP
 * CAP's OData, express's hello-world get), and the data every server holds.
 */
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

/** The request's headers and body as sent: the body as JSON text. */
export function sent(request: HttpRequest): { method: HttpRequest['method']; headers: Record<string, string>; body?: string } {
  return request.body === undefined
    ? { method: request.method, headers: {} }
    : { method: request.method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(request.body) };
}

export interface Scenario {
  name: string;
  /** It adds records: measured last, and not run before the measured runs (the servers' answers would part). */
  writes?: boolean;
  rpc(d: BenchData): unknown;
  /** Absent where REST has no such request (it has no count route). */
  rest?(d: BenchData): HttpRequest;
  /** Absent where OData has no such request. */
  odata?(d: BenchData): HttpRequest;
  /** The body POSTed to the GraphQL endpoint. Absent where the schema has no such request. */
  graphql?(d: BenchData): GraphQLRequest;
  /** The same request to SAP CAP's OData service (bench/cap), under its service root. */
  cap?(d: BenchData): HttpRequest;
  /**
   * What a correct OData answer holds (row counts, totals, the values ordered on), to compare CAP's
   * answer with ObjectQL's OData one once before CAP is measured: a peer failing fast would flatter us.
   */
  answer?(body: unknown): unknown;
  /** The request to the express hello-world (bench/express-hello.ts), which answers a get only. */
  express?(d: BenchData): HttpRequest;
}

/** An OData JSON answer: a collection (with its count when asked) or one entity. */
type ODataBody = { value: Array<Record<string, unknown>>; '@odata.count'?: number } & Record<string, unknown>;
const odataBody = (body: unknown) => body as ODataBody;

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
/** CAP writes a managed association through its foreign key. */
const NEW_CAP_ITEM = { name: NEW_ITEM.name, status: NEW_ITEM.status, amount: NEW_ITEM.amount, category_id: NEW_ITEM.category };
const GROUP = {
  groupBy: ['status'],
  aggregate: [
    { func: 'count', alias: 'n' },
    { func: 'sum', field: 'amount', alias: 'total' },
  ],
};

/** The OData forms CAP answers as ObjectQL does. */
const ODATA_LIST: HttpRequest = {
  method: 'GET',
  path: `/bench_item?${oq({ $filter: "status eq 'open' and amount gt 500", $orderby: 'amount desc', $top: '20', $count: 'true' })}`,
};
const ODATA_COUNT: HttpRequest = { method: 'GET', path: `/bench_item/$count?${oq({ $filter: "status eq 'closed'" })}` };
const ODATA_ONE_TO_MANY: HttpRequest = {
  method: 'GET',
  path: `/bench_category?${oq({ $top: '20', $orderby: 'name', $expand: 'bench_item_by_category($select=name,amount;$orderby=amount desc;$top=5)', $count: 'true' })}`,
};
const ODATA_GROUP: HttpRequest = {
  method: 'GET',
  path: `/bench_item?${oq({ $apply: 'groupby((status),aggregate($count as n,amount with sum as total))' })}`,
};

export const SCENARIOS: Scenario[] = [
  // Filtered on `status`, sorted on `amount`: the (status, amount) index serves both, and the total.
  {
    name: 'list',
    rpc: () => ({ op: 'find', object: 'bench_item', args: LIST }),
    rest: () => ({ method: 'GET', path: `/bench_item?${q({ filter: LIST.filters, sort: 'amount desc', top: 20 })}` }),
    // $count=true: the total comes back as @odata.count, as meta.total does in the other forms.
    odata: () => ODATA_LIST,
    cap: () => ODATA_LIST,
    // Amounts, not ids: rows of one amount may come in either order.
    answer: (body) => {
      const b = odataBody(body);
      return { count: b['@odata.count'], amounts: b.value.map((r) => r.amount) };
    },
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
    cap: (d) => ({ method: 'GET', path: `/bench_item${okey(mid(d))}` }),
    answer: (body) => {
      const r = odataBody(body);
      return [r.id, r.name, r.status, r.amount];
    },
    express: (d) => ({ method: 'GET', path: `/bench_item/${mid(d)}` }),
  },
  {
    name: 'count',
    rpc: () => ({ op: 'count', object: 'bench_item', args: { filters: [['status', '=', 'closed']] } }),
    odata: () => ODATA_COUNT,
    cap: () => ODATA_COUNT,
    answer: (body) => Number(body),
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
    // CAP's managed association `category` is the navigation property itself (its key is category_id).
    cap: () => ({
      method: 'GET',
      path: `/bench_item?${oq({ $top: '50', $orderby: 'name', $expand: 'category($select=name)', $count: 'true' })}`,
    }),
    answer: (body) => {
      const b = odataBody(body);
      const nav = (r: Record<string, unknown>) => (r.category_nav ?? r.category) as { name: string };
      return { count: b['@odata.count'], rows: b.value.map((r) => [r.name, nav(r).name]) };
    },
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
    odata: () => ODATA_ONE_TO_MANY,
    // CAP's back association has the same name (bench/cap/schema.cds).
    cap: () => ODATA_ONE_TO_MANY,
    answer: (body) => {
      const b = odataBody(body);
      const amounts = (c: Record<string, unknown>) => (c.bench_item_by_category as Array<{ amount: number }>).map((i) => i.amount);
      return { count: b['@odata.count'], rows: b.value.map((c) => [c.id, amounts(c)]) };
    },
    graphql: () => ({
      query:
        'query OneToMany { bench_categoryList(top: 20, sort: "name") { id name bench_item_by_category(top: 5, sort: "-amount") { id name amount } } }',
    }),
  },
  {
    name: 'group-by',
    rpc: () => ({ op: 'find', object: 'bench_item', args: GROUP }),
    rest: () => ({ method: 'GET', path: `/bench_item?${q({ groupBy: 'status', aggregate: GROUP.aggregate })}` }),
    odata: () => ODATA_GROUP,
    cap: () => ODATA_GROUP,
    answer: (body) =>
      odataBody(body)
        .value.map((g) => [g.status, Number(g.n), Number(g.total)])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    graphql: () => ({ query: '{ bench_itemAggregate(groupBy: [status]) { group { status } count sum { amount } } }' }),
  },
  {
    name: 'create',
    writes: true,
    rpc: () => ({ op: 'create', object: 'bench_item', args: NEW_ITEM }),
    rest: () => ({ method: 'POST', path: '/bench_item', body: NEW_ITEM }),
    odata: () => ({ method: 'POST', path: '/bench_item', body: NEW_ITEM }),
    cap: () => ({ method: 'POST', path: '/bench_item', body: NEW_CAP_ITEM }),
    answer: (body) => {
      const r = odataBody(body);
      return [typeof r.id, r.name, r.status, r.amount];
    },
    graphql: () => ({
      query: `mutation Create($input: Bench_itemInput!) { createBench_item(input: $input) { ${ITEM_FIELDS} } }`,
      variables: { input: NEW_ITEM },
    }),
  },
];
