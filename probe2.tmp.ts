import { startServer } from './test/helpers/server';
(async () => {
  const s = await startServer({ metadata: ['/work/main/test/fixtures/query-app'], security: { allowBodyUser: true } });
  for (const args of [
    { groupBy: ['status'], aggregate: [{ func: 'count', alias: 'n' }], sort: 'status', top: 2 },
    { groupBy: ['status'], aggregate: [{ func: 'count', alias: 'n' }], sort: 'status', top: 2, skip: 2 },
    { groupBy: ['status'], aggregate: [{ func: 'count', alias: 'n' }], sort: 'status' },
    { groupBy: ['status'] , sort: 'status'},
    { filters: [['id','=','it-01']], expand: { labels: { top: 1, sort: '-name' } }, fields: ['labels'] },
    { filters: [['id','=','it-01']], expand: { labels: { top: 1 } }, fields: ['labels'] },
  ]) {
    const r = await s.rpc({ op: 'find', object: 'item', args, user: { id: 'a', roles: [] } });
    console.log(r.status, JSON.stringify(r.body));
  }
  await s.stop();
})().catch((e) => { console.error(e); process.exit(1); });
