/** The benchmarked requests, in their JSON-RPC and REST forms, and the data every server holds. */
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
  /** Under the REST prefix. */
  path: string;
  body?: unknown;
}

export interface Scenario {
  name: string;
  rpc(d: BenchData): unknown;
  /** Absent where REST has no such request (it has no count route). */
  rest?(d: BenchData): HttpRequest;
}

const q = (params: Record<string, unknown>) =>
  new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString();

const LIST = { filters: [['status', '=', 'open'], ['amount', '>', 500]], sort: [['amount', 'desc']], top: 20 };
const mid = (d: BenchData) => d.items[Math.floor(d.items.length / 2)].id;
const NEW_ITEM = { name: 'New item', status: 'open', amount: 42, category: 'cat-7' };
const GROUP = { groupBy: ['status'], aggregate: [{ func: 'count', alias: 'n' }, { func: 'sum', field: 'amount', alias: 'total' }] };

export const SCENARIOS: Scenario[] = [
  // Filtered on `status`, sorted on `amount`: the (status, amount) index serves both, and the total.
  {
    name: 'list',
    rpc: () => ({ op: 'find', object: 'bench_item', args: LIST }),
    rest: () => ({ method: 'GET', path: `/bench_item?${q({ filter: LIST.filters, sort: 'amount desc', top: 20 })}` }),
  },
  {
    name: 'get',
    rpc: (d) => ({ op: 'findOne', object: 'bench_item', args: mid(d) }),
    rest: (d) => ({ method: 'GET', path: `/bench_item/${mid(d)}` }),
  },
  { name: 'count', rpc: () => ({ op: 'count', object: 'bench_item', args: { filters: [['status', '=', 'closed']] } }) },
  {
    name: 'expand',
    rpc: () => ({ op: 'find', object: 'bench_item', args: { top: 50, sort: [['name', 'asc']], expand: { category: { fields: ['name'] } } } }),
    rest: () => ({ method: 'GET', path: `/bench_item?${q({ top: 50, sort: 'name', expand: { category: { fields: ['name'] } } })}` }),
  },
  {
    name: 'group-by',
    rpc: () => ({ op: 'find', object: 'bench_item', args: GROUP }),
    rest: () => ({ method: 'GET', path: `/bench_item?${q({ groupBy: 'status', aggregate: GROUP.aggregate })}` }),
  },
  {
    name: 'create',
    rpc: () => ({ op: 'create', object: 'bench_item', args: NEW_ITEM }),
    rest: () => ({ method: 'POST', path: '/bench_item', body: NEW_ITEM }),
  },
];
