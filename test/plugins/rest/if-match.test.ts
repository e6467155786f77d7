/**
 * Optimistic concurrency through REST (beside the spec): GET /:object/:id answers with a weak ETag
 * of the record's last change, PUT/PATCH/DELETE honour If-Match (a mismatch is 412 and nothing
 * changes), and the engine's `ifUnchangedSince` under it — compared inside the write, after the
 * permission and not-found checks. Real server over HTTP, sample application.
 */
import { expect } from 'chai';
import { ObjectQLError } from '../../../kernel';
import { lastChangeStamp } from '../../../kernel/engine/record-stamp';
import { etagOf as recordEtag, ifUnchangedSinceOf } from '../../../kernel/protocol';
import { USERS, type TestServer } from '../../helpers/server';
import { expectError, ok, rest, startRestServer, type Res } from './helpers';

const ETAG = /^W\/"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)"$/;

describe('REST ETag and If-Match', () => {
  let s: TestServer;
  let seq = 0;

  before(async () => {
    s = await startRestServer();
  });
  after(async () => {
    await s?.stop();
  });

  /** A fresh project (as carol, a manager) and its ETag as GET gives it. */
  async function fresh(): Promise<{ id: string; etag: string }> {
    seq += 1;
    const created = ok(await rest(s, 'POST', '/project', { name: `If-Match project ${seq}` }), 201);
    const read = await rest(s, 'GET', `/project/${created.id}`);
    ok(read);
    return { id: created.id, etag: etagOf(read) };
  }

  function etagOf(res: Res): string {
    const etag = res.headers.get('etag');
    expect(etag, 'ETag header').to.be.a('string').and.match(ETAG);
    return etag!;
  }

  /** Updates land on a later millisecond than the stamp they follow. */
  const tick = () => new Promise((r) => setTimeout(r, 5));

  async function stored(id: string): Promise<any> {
    return ok(await rest(s, 'GET', `/project/${id}`, undefined, USERS.admin));
  }

  describe('ETag', () => {
    it('GET /:object/:id carries W/"<updated_at>", the same with fields that leave the timestamps out (they stay out)', async () => {
      const { id, etag } = await fresh();
      const record = await stored(id);
      expect(etag).to.equal(`W/"${new Date(record.updated_at).toISOString()}"`);
      const narrow = await rest(s, 'GET', `/project/${id}?fields=name`);
      expect(Object.keys(ok(narrow)).sort()).to.deep.equal(['@type', 'id', 'name']);
      expect(etagOf(narrow)).to.equal(etag);
    });

    it('changes after an update, and the update answers with the new one', async () => {
      const { id, etag } = await fresh();
      await tick();
      const updated = await rest(s, 'PATCH', `/project/${id}`, { priority: 'low' });
      const body = ok(updated);
      const after = etagOf(await rest(s, 'GET', `/project/${id}`));
      expect(after).not.to.equal(etag);
      expect(etagOf(updated)).to.equal(after);
      expect(after).to.equal(`W/"${new Date(body.updated_at).toISOString()}"`);
    });

    it('list and write routes other than update carry none', async () => {
      const { id } = await fresh();
      expect((await rest(s, 'GET', '/project?top=1')).headers.get('etag')).to.equal(null);
      expect((await rest(s, 'DELETE', `/project/${id}`)).headers.get('etag')).to.equal(null);
    });
  });

  describe('If-Match on PUT / PATCH', () => {
    it('the current ETag → 200 and the change', async () => {
      const { id, etag } = await fresh();
      await tick();
      const body = ok(await rest(s, 'PUT', `/project/${id}`, { priority: 'high' }, USERS.carol, { 'If-Match': etag }));
      expect(body).to.include({ id, priority: 'high', '@type': 'project' });
      expect((await stored(id)).priority).to.equal('high');
    });

    it('a strong tag of the same timestamp, and a list holding it, match too (weak comparison)', async () => {
      const { id, etag } = await fresh();
      await tick();
      const strong = etag.slice(2);
      const first = await rest(s, 'PATCH', `/project/${id}`, { priority: 'low' }, USERS.carol, { 'If-Match': strong });
      ok(first);
      await tick();
      const list = `W/"2001-01-01T00:00:00.000Z", ${etagOf(first)}`;
      ok(await rest(s, 'PATCH', `/project/${id}`, { priority: 'medium' }, USERS.carol, { 'If-Match': list }));
      expect((await stored(id)).priority).to.equal('medium');
    });

    it('a stale ETag → 412 PRECONDITION_FAILED with {object, id}, and the record is unchanged', async () => {
      const { id, etag: stale } = await fresh();
      await tick();
      ok(await rest(s, 'PATCH', `/project/${id}`, { priority: 'low' }));
      const before = await stored(id);
      const res = await rest(s, 'PUT', `/project/${id}`, { priority: 'high', name: 'Lost update' }, USERS.carol, { 'If-Match': stale });
      expectError(res, 412, 'PRECONDITION_FAILED', id, 'project');
      expect(res.body.error.details).to.deep.equal({ object: 'project', id });
      expect(await stored(id)).to.deep.equal(before);
    });

    it('`*` matches any existing record', async () => {
      const { id } = await fresh();
      ok(await rest(s, 'PATCH', `/project/${id}`, { priority: 'low' }, USERS.carol, { 'If-Match': '*' }));
      expect((await stored(id)).priority).to.equal('low');
    });

    it('a malformed If-Match matches nothing: 412, unchanged', async () => {
      const { id } = await fresh();
      const before = await stored(id);
      for (const value of ['not-a-tag', 'W/"not a time"', '""'])
        expectError(
          await rest(s, 'PATCH', `/project/${id}`, { priority: 'low' }, USERS.carol, { 'If-Match': value }),
          412,
          'PRECONDITION_FAILED',
        );
      expect(await stored(id)).to.deep.equal(before);
    });

    it('without If-Match, as before: the write happens whatever changed in between', async () => {
      const { id } = await fresh();
      ok(await rest(s, 'PATCH', `/project/${id}`, { priority: 'low' }));
      ok(await rest(s, 'PATCH', `/project/${id}`, { priority: 'high' }));
      expect((await stored(id)).priority).to.equal('high');
    });
  });

  describe('If-Match on DELETE', () => {
    it('a stale ETag → 412 and the record is still there; the current one deletes it', async () => {
      const { id, etag: stale } = await fresh();
      await tick();
      ok(await rest(s, 'PATCH', `/project/${id}`, { priority: 'low' }));
      expectError(await rest(s, 'DELETE', `/project/${id}`, undefined, USERS.carol, { 'If-Match': stale }), 412, 'PRECONDITION_FAILED', id);
      const current = etagOf(await rest(s, 'GET', `/project/${id}`));
      expect(ok(await rest(s, 'DELETE', `/project/${id}`, undefined, USERS.carol, { 'If-Match': current }))).to.deep.equal({
        id,
        deleted: true,
        '@type': 'project',
      });
      expectError(await rest(s, 'GET', `/project/${id}`), 404, 'NOT_FOUND', id);
    });

    it('`*` deletes an existing record', async () => {
      const { id } = await fresh();
      ok(await rest(s, 'DELETE', `/project/${id}`, undefined, USERS.carol, { 'If-Match': '*' }));
    });
  });

  describe('a precondition never hides another error', () => {
    const stale = 'W/"2001-01-01T00:00:00.000Z"';

    it('unknown record → 404, unknown object → 404, whatever If-Match says', async () => {
      for (const tag of [stale, '*', 'garbage']) {
        expectError(await rest(s, 'PATCH', '/project/prj-none', { priority: 'low' }, USERS.carol, { 'If-Match': tag }), 404, 'NOT_FOUND');
        expectError(await rest(s, 'DELETE', '/project/prj-none', undefined, USERS.carol, { 'If-Match': tag }), 404, 'NOT_FOUND');
        expectError(await rest(s, 'DELETE', '/nothing/x', undefined, USERS.carol, { 'If-Match': tag }), 404, 'NOT_FOUND');
      }
    });

    it('out of the record scope → 404, an operation the role may not do → 403, anonymous → 401', async () => {
      const alice = USERS.alice;
      expectError(await rest(s, 'PATCH', '/project/prj-gemini', { priority: 'low' }, alice, { 'If-Match': stale }), 404, 'NOT_FOUND');
      expectError(await rest(s, 'DELETE', '/project/prj-apollo', undefined, alice, { 'If-Match': stale }), 403, 'FORBIDDEN');
      expectError(await rest(s, 'PATCH', '/project/prj-apollo', { budget: 1 }, alice, { 'If-Match': stale }), 403, 'FORBIDDEN', 'budget');
      expectError(
        await rest(s, 'PATCH', '/project/prj-apollo', { priority: 'low' }, USERS.viewer, { 'If-Match': stale }),
        403,
        'FORBIDDEN',
      );
      const anonymous = await rest(s, 'PATCH', '/project/prj-apollo', { priority: 'low' }, null, { 'If-Match': stale });
      expect(anonymous.status).to.equal(401);
    });
  });

  describe('the engine: repo.update / repo.delete with ifUnchangedSince', () => {
    const repo = () => s.kernel.engine.repo('project', { user: { id: 'carol', roles: ['manager'] } });

    it('compares instants, whatever their form: an ISO string, another offset, one of a list', async () => {
      const { id } = await fresh();
      const stamp = async () => new Date((await repo().findOne(id))!.updated_at as string | Date);
      await tick();
      await repo().update(id, { priority: 'low' }, { ifUnchangedSince: (await stamp()).toISOString() });
      await tick();
      await repo().update(id, { priority: 'high' }, { ifUnchangedSince: ['2001-01-01T00:00:00Z', (await stamp()).toISOString()] });
      // The same instant written at +02:00.
      const shifted = new Date((await stamp()).getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
      await repo().delete(id, { ifUnchangedSince: shifted });
      expect(await repo().findOne(id)).to.equal(null);
    });

    it('the stamp is updated_at, else created_at, as the caller may see it; a Date and its ISO string are the same', () => {
      const at = '2024-05-01T12:00:00.000Z';
      expect(lastChangeStamp({ id: 'x', updated_at: new Date(at), created_at: '2020-01-01T00:00:00Z' })).to.equal(at);
      expect(lastChangeStamp({ id: 'x', updated_at: '2024-05-01T14:00:00+02:00' })).to.equal(at);
      expect(lastChangeStamp({ id: 'x', updated_at: null, created_at: new Date(at) })).to.equal(at);
      expect(lastChangeStamp({ id: 'x', updated_at: new Date(0), created_at: at }, new Set(['created_at']))).to.equal(at);
      expect(lastChangeStamp({ id: 'x' })).to.equal(undefined);
      expect(recordEtag({ id: 'x', updated_at: new Date(at) })).to.equal(`W/"${at}"`);
      expect(ifUnchangedSinceOf(undefined)).to.deep.equal({});
      expect(ifUnchangedSinceOf('*')).to.deep.equal({});
      expect(ifUnchangedSinceOf(`W/"${at}", "b"`)).to.deep.equal({ ifUnchangedSince: [at, 'b'] });
      expect(ifUnchangedSinceOf('junk')).to.deep.equal({ ifUnchangedSince: [] });
    });

    it('a mismatch is PRECONDITION_FAILED naming object and id; an empty list matches nothing; absent, no check', async () => {
      const { id } = await fresh();
      for (const ifUnchangedSince of ['2001-01-01T00:00:00.000Z', [], 'nonsense']) {
        try {
          await repo().update(id, { priority: 'low' }, { ifUnchangedSince });
          expect.fail('the update went through');
        } catch (err) {
          expect(err).to.be.instanceOf(ObjectQLError);
          expect((err as ObjectQLError).code).to.equal('PRECONDITION_FAILED');
          expect((err as ObjectQLError).message)
            .to.include(id)
            .and.include('project');
          expect((err as ObjectQLError).details).to.deep.equal({ object: 'project', id });
        }
      }
      await repo().update(id, { priority: 'low' });
      await repo().update(id, { priority: 'high' }, {});
    });
  });
});
