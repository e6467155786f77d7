/** The benchmarked requests, and the data both servers hold. */
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

export const SCENARIOS = [
  { name: 'list', rpc: () => ({ op: 'find', object: 'bench_item', args: { filters: [['status', '=', 'open'], ['amount', '>', 500]], sort: [['amount', 'desc']], top: 20 } }) },
  { name: 'get', rpc: (d: BenchData) => ({ op: 'findOne', object: 'bench_item', args: d.items[Math.floor(d.items.length / 2)].id }) },
  { name: 'count', rpc: () => ({ op: 'count', object: 'bench_item', args: { filters: [['status', '=', 'closed']] } }) },
  { name: 'expand', rpc: () => ({ op: 'find', object: 'bench_item', args: { top: 50, sort: [['name', 'asc']], expand: { category: { fields: ['name'] } } } }) },
  { name: 'group-by', rpc: () => ({ op: 'find', object: 'bench_item', args: { groupBy: ['status'], aggregate: [{ func: 'count', alias: 'n' }, { func: 'sum', field: 'amount', alias: 'total' }] } }) },
  { name: 'create', rpc: () => ({ op: 'create', object: 'bench_item', args: { name: 'New item', status: 'open', amount: 42, category: 'cat-7' } }) },
] as const;
