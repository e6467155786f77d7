/** The kernel's pubsub service hearing the records the rpc plugin writes. The service alone: test/kernel/pubsub.test.ts. */
import { expect } from 'chai';
import { RECORD_CHANGED_CHANNEL, type RecordChangedMessage } from '../../server';
import { startServer, USERS, type TestServer } from '../helpers/server';

describe('server: pubsub', () => {
  let s: TestServer;
  before(async () => {
    s = await startServer({ plugins: { rpc: true }, security: { adminRoles: ['admin'], allowBodyUser: true } });
  });
  after(async () => {
    await s?.stop();
  });

  it('publishes every committed change on the record-changed channel, as a copy', async () => {
    const heard: RecordChangedMessage[] = [];
    await s.kernel.resolve('pubsub').subscribe(RECORD_CHANGED_CHANNEL, (m) => heard.push(m as RecordChangedMessage));
    const created = await s.rpc({ op: 'create', object: 'account', args: { name: 'Pubsub Ltd' }, user: USERS.carol });
    expect(created.status).to.equal(200);
    expect(heard).to.have.length(1);
    expect(heard[0]).to.deep.include({ object: 'account', type: 'created', id: created.body.id });
    expect(heard[0].record).to.include({ name: 'Pubsub Ltd' });
  });
});
