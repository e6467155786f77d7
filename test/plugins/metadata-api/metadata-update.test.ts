/**
 * PUT {routes.metadata}/object/:name over real HTTP: admins only, both segments, bad bodies, and
 * the change staying inside its own kernel (a second kernel in the same process keeps the file's
 * label). The writable server also runs under a custom metadata prefix.
 */
import { expect } from 'chai';
import { USERS, type TestServer } from '../../helpers/server';
import { as, expectError, ok, startMetadataServer } from './helpers';

const P = '/v2/meta';
const { alice, carol, admin } = USERS;

describe('metadata API: updating an object (HTTP)', () => {
  let w: TestServer; // takes the writes, under a custom prefix
  let other: TestServer; // default prefix, never written

  before(async () => {
    [w, other] = await Promise.all([startMetadataServer({ routes: { metadata: P } }), startMetadataServer()]);
  });
  after(async () => {
    await Promise.all([w?.stop(), other?.stop()]);
  });

  const put = (user: typeof admin | undefined, path: string, body: unknown, headers?: Record<string, string>) =>
    as(w, user, 'PUT', P + path, body, headers);

  it('serves every route under the configured prefix only', async () => {
    expect(ok(await as(w, carol, 'GET', `${P}/objects`)).objects).to.have.length(6);
    expect(ok(await as(w, carol, 'GET', `${P}/app/projects`)).label).to.equal('Project Tracker');
    expectError(await as(w, carol, 'GET', '/api/metadata/objects'), 404, 'NOT_FOUND');
  });

  it('needs an identity (401) with an admin role (403)', async () => {
    expectError(await put(undefined, '/object/account', { label: 'Client' }), 401, 'UNAUTHORIZED');
    for (const user of [alice, carol]) {
      const res = await put(user, '/object/account', { label: 'Client' });
      expectError(res, 403, 'FORBIDDEN', 'admin');
      expect(res.body.error.details).to.deep.equal({ required_permission: 'admin', user_roles: user.roles });
    }
    // Who asks is checked before the body: a non-admin learns nothing about the request's shape.
    expectError(await put(alice, '/object/account', 'not json', { 'content-type': 'text/plain' }), 403, 'FORBIDDEN');
    expect(ok(await as(w, carol, 'GET', `${P}/objects/account`)).label).to.equal('Account');
  });

  it('changes label and description for later reads of this kernel only', async () => {
    expect(ok(await put(admin, '/object/project', { label: 'Engagement', description: 'Billable work.' }))).to.deep.equal({
      success: true,
    });
    for (const path of ['/objects/project', '/object/project']) {
      expect(ok(await as(w, alice, 'GET', P + path))).to.include({ label: 'Engagement', description: 'Billable work.', icon: 'briefcase' });
    }
    const listed = ok(await as(w, carol, 'GET', `${P}/objects`)).objects.find((o: any) => o.name === 'project');
    expect(listed).to.include({ label: 'Engagement', description: 'Billable work.' });
    const entry = ok(await as(w, carol, 'GET', `${P}/object`)).items.find((i: any) => i.id === 'project');
    expect(entry.content.label).to.equal('Engagement');

    // The plural segment works too, and one key alone leaves the other as it was.
    expect(ok(await put(admin, '/objects/project', { description: '' }))).to.deep.equal({ success: true });
    expect(ok(await as(w, carol, 'GET', `${P}/objects/project`))).to.include({ label: 'Engagement', description: '' });

    const untouched = ok(await as(other, carol, 'GET', '/api/metadata/objects/project'));
    expect(untouched.label).to.equal('Project');
    expect(untouched.description).to.equal('A piece of work for a customer, with a budget, tasks and expenses.');
  });

  it('rejects bodies other than {label?, description?} with INVALID_REQUEST naming the key', async () => {
    const cases: Array<[unknown, string[]]> = [
      [{ label: 'X', icon: 'star' }, ["'icon'"]],
      [{ fields: {}, name: 'y' }, ["'fields'", "'name'"]],
      [{ label: 7 }, ["'label'"]],
      [{ label: '  ' }, ["'label'"]],
      [{ label: null }, ["'label'"]],
      [{ description: ['a'] }, ["'description'"]],
      [{}, ['label', 'description']],
      [[{ label: 'X' }], ['JSON object']],
      ['"just a string"', ['JSON object']],
    ];
    for (const [body, named] of cases) expectError(await put(admin, '/object/milestone', body), 400, 'INVALID_REQUEST', ...named);
    expectError(await put(admin, '/object/milestone', 'label=X', { 'content-type': 'text/plain' }), 400, 'INVALID_REQUEST', 'Content-Type');
    expectError(await put(admin, '/object/milestone', '{"label": '), 400, 'INVALID_REQUEST');
    expect(ok(await as(w, admin, 'GET', `${P}/objects/milestone`)).label).to.equal('Milestone');
  });

  it('an unknown object is NOT_FOUND naming it', async () => {
    expectError(await put(admin, '/object/nope', { label: 'X' }), 404, 'NOT_FOUND', "'nope'");
    expectError(await put(admin, '/objects/nope', { label: 'X' }), 404, 'NOT_FOUND', "'nope'");
  });
});
