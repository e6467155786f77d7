import { startServer } from './test/helpers/server';
(async () => {
  const s = await startServer({ metadata: ['/work/main/test/fixtures/query-app'], security: { allowBodyUser: true } });
  const args = JSON.parse(process.argv[2] ?? '{"top":2}');
  const r = await s.rpc({ op: 'find', object: process.argv[3] ?? 'item', args, user: { id: 'alice', roles: ['member'] } });
  console.log(r.status, JSON.stringify(r.body, null, 1));
  await s.stop();
})().catch((e) => { console.error(e); process.exit(1); });
