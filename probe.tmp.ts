import { startServer } from './test/helpers/server';
(async () => {
  const s = await startServer({ metadata: ['/work/main/test/fixtures/query-app'], security: { allowBodyUser: true } });
  const q = async (filters: unknown, user?: unknown, extra: object = {}) => {
    const r = await s.rpc({ op: 'find', object: 'item', args: { filters, fields: ['name'], ...extra }, user });
    console.log(JSON.stringify(filters), r.status, r.status === 200 ? r.body.items.map((i: any) => i.id).join(',') : JSON.stringify(r.body));
  };
  await q([['owner', '=', '$current_user']]);
  await q([['owner', '!=', '$current_user']]);
  await q([['audience', '=', '$current_user.role']]);
  await q([['owner', '=', '$current_user.buddy']], { id: 'x', roles: [] });
  await q([['due', '=', '$now']], { id: 'x', roles: [] });
  await q([['happened_at', '<', '$today']], { id: 'x', roles: [] });
  await q([['actual_cost', '!=', { $field: 'budget' }]], { id: 'x', roles: [] });
  await q([['qty', 'in', []]], { id: 'x', roles: [] });
  await q([['qty', 'not in', []]], { id: 'x', roles: [] });
  await q([['name', 'like', 'alpha\\']], { id: 'x', roles: [] });
  await q([['due', '<', 'happened_at']], { id: 'x', roles: [] });
  await q([['id', '=', 'it-01']], { id: 'x', roles: [] }, { expand: { labels: { top: 1, sort: '-name' } } });
  await q([['labels', '=', ['lb-1','lb-2']]], { id: 'x', roles: [] });
  await q([['tags', 'in', ['red', 'nope']]], { id: 'x', roles: [] });
  await q([['qty', '=', true]], { id: 'x', roles: [] });
  await q([['name', '=', 5]], { id: 'x', roles: [] });
  await q([['created_at', '>', '2000-01-01']], { id: 'x', roles: [] });
  await q([['category', 'startswith', 'cat-c']], { id: 'x', roles: [] });
  await q([['name', '>', 'a']], { id: 'x', roles: [] });
  await s.stop();
})().catch((e) => { console.error(e); process.exit(1); });
