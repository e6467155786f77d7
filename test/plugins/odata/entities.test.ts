/**
 * The OData entity routes over real HTTP, on SQLite and PostgreSQL: collections, entities by key,
 * $count, properties and navigation, create / update / delete with their status codes, Location
 * and bodies, JSON-valued fields as JSON text, @odata.bind, the metadata levels, and the error
 * bodies of bad keys, bodies and permissions.
 */
import { expect } from 'chai';
import { USERS } from '../../helpers/server';
import { BASE, describeOnDatabases, expectODataError, key, od, ok, plain } from './helpers';

describeOnDatabases('OData entity routes', (server) => {
  describe('reading', () => {
    it('lists an entity set with its context URL and an ETag per entity', async () => {
      const res = await od(server(), 'GET', '/project');
      const body = ok(res);
      expect(res.headers.get('content-type')).to.match(/^application\/json;\s*odata\.metadata=minimal/);
      expect(Object.keys(body)).to.deep.equal(['@odata.context', 'value']);
      expect(body['@odata.context']).to.equal(`${BASE}/$metadata#project`);
      expect(body.value.map((p: any) => p.id).sort()).to.deep.equal(['prj-apollo', 'prj-gemini', 'prj-mercury']);
      const apollo = body.value.find((p: any) => p.id === 'prj-apollo');
      expect(Object.keys(apollo)[0]).to.equal('@odata.etag');
      expect(apollo['@odata.etag']).to.equal(`W/"${new Date(apollo.updated_at).toISOString()}"`);
      expect(apollo).to.include({ name: 'Apollo Website Relaunch', account: 'acc-acme', budget: 120000, start_date: '2025-01-15' });
      expect(apollo.tags).to.deep.equal(['frontend', 'backend', 'customer']);
      // A json field is JSON text in an Edm.String.
      expect(JSON.parse(apollo.settings)).to.deep.equal({ notify_on_overrun: true, channel: '#apollo' });
    });

    it('shows each caller the records and fields the permissions give them', async () => {
      const body = ok(await od(server(), 'GET', '/project', undefined, USERS.alice));
      expect(body.value.map((p: any) => p.id).sort()).to.deep.equal(['prj-apollo', 'prj-mercury']);
      for (const p of body.value) expect(p).not.to.have.property('actual_cost');
    });

    it('reads one entity by key, in both key forms, with ETag and caching headers', async () => {
      const res = await od(server(), 'GET', `/project${key('prj-apollo')}`);
      const body = ok(res);
      expect(body['@odata.context']).to.equal(`${BASE}/$metadata#project/$entity`);
      expect(body).to.include({ id: 'prj-apollo', status: 'active' });
      expect(res.headers.get('etag'))
        .to.equal(body['@odata.etag'])
        .and.match(/^W\/".+"$/);
      expect(res.headers.get('cache-control')).to.equal('private, max-age=0, must-revalidate');
      expect(plain(ok(await od(server(), 'GET', "/project(id='prj-apollo')")))).to.deep.equal(plain(body));
    });

    it("answers an absent record, and one out of the caller's scope, with the same 404", async () => {
      const missing = expectODataError(
        await od(server(), 'GET', `/project${key('nope')}`, undefined, USERS.alice),
        404,
        'NOT_FOUND',
        "'nope'",
        'project',
      );
      const hidden = expectODataError(await od(server(), 'GET', `/project${key('prj-gemini')}`, undefined, USERS.alice), 404, 'NOT_FOUND');
      expect(JSON.stringify(hidden).split('prj-gemini').join('nope')).to.equal(JSON.stringify(missing));
    });

    it('answers If-None-Match with the current ETag with 304 and no body', async () => {
      const first = await od(server(), 'GET', `/project${key('prj-gemini')}`);
      const etag = first.headers.get('etag')!;
      const again = await od(server(), 'GET', `/project${key('prj-gemini')}`, undefined, USERS.carol, { 'if-none-match': etag });
      expect(again.status).to.equal(304);
      expect(again.body).to.equal(undefined);
      expect(again.headers.get('etag')).to.equal(etag);
      expect(
        (await od(server(), 'GET', `/project${key('prj-gemini')}`, undefined, USERS.carol, { 'if-none-match': 'W/"other"' })).status,
      ).to.equal(200);
      expect((await od(server(), 'GET', `/project${key('prj-gemini')}`, undefined, USERS.carol, { 'if-none-match': '*' })).status).to.equal(
        304,
      );
    });

    it("counts with $count as text/plain, within the caller's scope", async () => {
      const res = await od(server(), 'GET', '/project/$count');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain/);
      expect(res.body).to.equal(3);
      expect((await od(server(), 'GET', '/project/$count', undefined, USERS.alice)).body).to.equal(2);
    });

    it('reads a property as {value}, JSON text for a json field, and a hidden one as unknown', async () => {
      const name = ok(await od(server(), 'GET', `/project${key('prj-apollo')}/name`));
      expect(name).to.deep.equal({ '@odata.context': `${BASE}/$metadata#project('prj-apollo')/name`, value: 'Apollo Website Relaunch' });
      expect(JSON.parse(ok(await od(server(), 'GET', `/project${key('prj-apollo')}/settings`)).value)).to.have.property(
        'channel',
        '#apollo',
      );
      const unknown = expectODataError(
        await od(server(), 'GET', `/project${key('prj-apollo')}/no_such_field`, undefined, USERS.alice),
        404,
        'NOT_FOUND',
      );
      const hidden = expectODataError(
        await od(server(), 'GET', `/project${key('prj-apollo')}/actual_cost`, undefined, USERS.alice),
        404,
        'NOT_FOUND',
      );
      expect(JSON.stringify(hidden).split('actual_cost').join('no_such_field')).to.equal(JSON.stringify(unknown));
    });

    it('follows a navigation property to the related entity, 204 when there is none', async () => {
      const project = ok(await od(server(), 'GET', `/task${key('tsk-apollo-api')}/project_nav`));
      expect(project['@odata.context']).to.equal(`${BASE}/$metadata#project/$entity`);
      expect(project.id).to.equal('prj-apollo');
      const created = ok(await od(server(), 'POST', '/contact', { last_name: 'Loner' }), 201);
      const none = await od(server(), 'GET', `/contact${key(created.id)}/account_nav`);
      expect(none.status).to.equal(204);
      expect(none.body).to.equal(undefined);
    });

    it('answers Accept odata.metadata=none without control information, and $format likewise', async () => {
      const res = await od(server(), 'GET', `/project${key('prj-apollo')}`, undefined, USERS.carol, {
        accept: 'application/json;odata.metadata=none',
      });
      const body = ok(res);
      expect(res.headers.get('content-type')).to.match(/odata\.metadata=none/);
      expect(Object.keys(body).filter((k) => k.includes('@'))).to.deep.equal([]);
      expect(res.headers.get('etag'), 'the header stays').to.match(/^W\//);
      const list = ok(await od(server(), 'GET', '/project?$format=application/json;odata.metadata=none'));
      expect(Object.keys(list)).to.deep.equal(['value']);
      expect(list.value[0]).not.to.have.property('@odata.etag');
      expectODataError(await od(server(), 'GET', '/project?$format=xml'), 400, 'INVALID_REQUEST', '$format');
    });
  });

  describe('writing', () => {
    it('creates: 201, Location, the entity with its context, created_at and ETag', async () => {
      const res = await od(server(), 'POST', '/account', { name: 'Umbrella', industry: 'healthcare' });
      const body = ok(res, 201);
      expect(body['@odata.context']).to.equal(`${BASE}/$metadata#account/$entity`);
      expect(body).to.include({ name: 'Umbrella', industry: 'healthcare', active: true });
      expect(body.created_at).to.be.a('string');
      expect(res.headers.get('location')).to.equal(`${BASE}/account('${body.id}')`);
      expect(res.headers.get('etag')).to.equal(body['@odata.etag']);
      expect(plain(ok(await od(server(), 'GET', res.headers.get('location')!.slice(BASE.length))))).to.deep.equal(plain(body));
    });

    it('creates with a quote in the id, addressed with the quote doubled', async () => {
      const res = await od(server(), 'POST', '/account', { id: "o'brien", name: "O'Brien & Sons" });
      ok(res, 201);
      expect(res.headers.get('location')).to.equal(`${BASE}/account('o''brien')`);
      expect(ok(await od(server(), 'GET', "/account('o''brien')")).name).to.equal("O'Brien & Sons");
    });

    it('takes JSON text for json fields and checks it', async () => {
      const body = ok(await od(server(), 'POST', '/project', { name: 'Json project', settings: '{"a":[1,2]}' }), 201);
      expect(JSON.parse(body.settings)).to.deep.equal({ a: [1, 2] });
      const { items } = (
        await server().rpc(
          { op: 'find', object: 'project', args: { filters: [['id', '=', body.id]], fields: ['settings'] } },
          { 'x-test-user': JSON.stringify(USERS.carol) },
        )
      ).body;
      expect(items[0].settings, 'stored as JSON, not as a string').to.deep.equal({ a: [1, 2] });
      const bad = expectODataError(
        await od(server(), 'POST', '/project', { name: 'Bad json', settings: '{oops' }),
        400,
        'VALIDATION_ERROR',
      );
      expect(bad.details).to.deep.equal([{ code: 'VALIDATION_ERROR', message: bad.details[0].message, target: 'settings' }]);
    });

    it('binds a relation with <nav>@odata.bind and refuses deep inserts', async () => {
      const task = ok(await od(server(), 'POST', '/task', { title: 'Bound', 'project_nav@odata.bind': "project('prj-gemini')" }), 201);
      expect(task.project).to.equal('prj-gemini');
      const url = ok(
        await od(server(), 'POST', '/task', {
          title: 'Bound by URL',
          'project_nav@odata.bind': `${server().url}${BASE}/project('prj-mercury')`,
        }),
        201,
      );
      expect(url.project).to.equal('prj-mercury');
      expectODataError(
        await od(server(), 'POST', '/task', { title: 'Wrong set', 'project_nav@odata.bind': "account('acc-acme')" }),
        400,
        'INVALID_REQUEST',
        'project_nav@odata.bind',
      );
      expectODataError(
        await od(server(), 'POST', '/task', { title: 'Deep', project_nav: { name: 'New' } }),
        400,
        'INVALID_REQUEST',
        'Deep insert',
      );
    });

    it('reports validation failures per field: REQUIRED_FIELD for a missing one, the kernel details as innererror', async () => {
      const error = expectODataError(await od(server(), 'POST', '/project', { budget: -1 }), 400, 'VALIDATION_ERROR');
      const byTarget = Object.fromEntries(error.details.map((d: any) => [d.target, d.code]));
      expect(byTarget).to.deep.equal({ name: 'REQUIRED_FIELD', budget: 'VALIDATION_ERROR' });
      expect(error.innererror.fields).to.have.keys('name', 'budget');
    });

    it('answers a unique violation with 409 CONFLICT', async () => {
      expectODataError(await od(server(), 'POST', '/account', { name: 'Acme Corporation' }), 409, 'CONFLICT');
    });

    it('answers Prefer: return=minimal with 204, Location and ETag', async () => {
      const res = await od(server(), 'POST', '/milestone', { name: 'Minimal' }, USERS.carol, { prefer: 'return=minimal' });
      expect(res.status).to.equal(204);
      expect(res.body).to.equal(undefined);
      expect(res.headers.get('location')).to.match(/^\/odata\/milestone\('.+'\)$/);
      expect(res.headers.get('preference-applied')).to.equal('return=minimal');
      expect(res.headers.get('etag')).to.match(/^W\//);
    });

    it('updates with PATCH: 200 with the whole entity, updated_at and a new ETag', async () => {
      const created = ok(await od(server(), 'POST', '/account', { name: 'Patch me', phone: '+1 555 0199' }), 201);
      await new Promise((r) => setTimeout(r, 5));
      const res = await od(server(), 'PATCH', `/account${key(created.id)}`, { industry: 'retail' });
      const body = ok(res);
      expect(body['@odata.context']).to.equal(`${BASE}/$metadata#account/$entity`);
      expect(body).to.include({ id: created.id, name: 'Patch me', phone: '+1 555 0199', industry: 'retail' });
      expect(body.updated_at).to.not.equal(created.updated_at);
      expect(res.headers.get('etag')).to.equal(body['@odata.etag']).and.not.equal(created['@odata.etag']);
    });

    it('deletes with 204 and no body', async () => {
      const created = ok(await od(server(), 'POST', '/account', { name: 'Delete me' }), 201);
      const res = await od(server(), 'DELETE', `/account${key(created.id)}`);
      expect(res.status).to.equal(204);
      expect(res.body).to.equal(undefined);
      expect(res.headers.get('odata-version')).to.equal('4.0');
      expectODataError(await od(server(), 'GET', `/account${key(created.id)}`), 404, 'NOT_FOUND');
    });

    it('refuses a body id that differs from the key', async () => {
      const error = expectODataError(
        await od(server(), 'PATCH', `/account${key('acc-acme')}`, { id: 'acc-other' }),
        400,
        'INVALID_REQUEST',
        'acc-other',
      );
      expect(error.details[0].target).to.equal('id');
    });
  });

  describe('ETag preconditions', () => {
    it('PATCH with the current ETag succeeds; with a stale one it is 412 and changes nothing', async () => {
      const created = ok(await od(server(), 'POST', '/account', { name: 'Guarded' }), 201);
      const etag = created['@odata.etag'];
      await new Promise((r) => setTimeout(r, 5));
      const first = ok(
        await od(server(), 'PATCH', `/account${key(created.id)}`, { industry: 'finance' }, USERS.carol, { 'if-match': etag }),
      );
      const stale = await od(server(), 'PATCH', `/account${key(created.id)}`, { industry: 'other' }, USERS.carol, { 'if-match': etag });
      const error = expectODataError(stale, 412, 'PRECONDITION_FAILED');
      expect(error.details[0].target).to.equal('If-Match');
      expect(ok(await od(server(), 'GET', `/account${key(created.id)}`)).industry).to.equal('finance');
      ok(
        await od(server(), 'PATCH', `/account${key(created.id)}`, { industry: 'other' }, USERS.carol, { 'if-match': first['@odata.etag'] }),
      );
      ok(await od(server(), 'PATCH', `/account${key(created.id)}`, { industry: 'retail' }, USERS.carol, { 'if-match': '*' }));
    });

    it('DELETE with a stale ETag is 412; If-Match on an absent record is 404', async () => {
      const created = ok(await od(server(), 'POST', '/account', { name: 'Guarded delete' }), 201);
      expectODataError(
        await od(server(), 'DELETE', `/account${key(created.id)}`, undefined, USERS.carol, { 'if-match': 'W/"1999-01-01T00:00:00.000Z"' }),
        412,
        'PRECONDITION_FAILED',
      );
      expect(
        (await od(server(), 'DELETE', `/account${key(created.id)}`, undefined, USERS.carol, { 'if-match': created['@odata.etag'] })).status,
      ).to.equal(204);
      expectODataError(
        await od(server(), 'DELETE', `/account${key(created.id)}`, undefined, USERS.carol, { 'if-match': '*' }),
        404,
        'NOT_FOUND',
      );
    });

    it('never lets a precondition hide a permission error', async () => {
      const etag = ok(await od(server(), 'GET', `/project${key('prj-apollo')}`, undefined, USERS.viewer))['@odata.etag'];
      const error = expectODataError(
        await od(server(), 'PATCH', `/project${key('prj-apollo')}`, { priority: 'low' }, USERS.viewer, { 'if-match': 'W/"stale"' }),
        403,
        'FORBIDDEN',
      );
      expect(error.innererror).to.deep.include({ required_permission: 'allow_edit', user_roles: ['viewer'] });
      expect(etag).to.be.a('string');
    });
  });

  describe('errors', () => {
    it('answers permission denials with the required permission and the roles in innererror', async () => {
      const forbidden = expectODataError(await od(server(), 'POST', '/project', { name: 'Nope' }, USERS.viewer), 403, 'FORBIDDEN');
      expect(forbidden.innererror).to.deep.equal({ required_permission: 'allow_create', object: 'project', user_roles: ['viewer'] });
      expect(forbidden.details).to.deep.equal([{ code: 'FORBIDDEN', message: forbidden.message, target: 'project' }]);
      const res = await od(server(), 'GET', '/project', undefined, null);
      expectODataError(res, 401, 'UNAUTHORIZED');
      expect(res.headers.get('www-authenticate')).to.equal('Bearer');
    });

    it('answers malformed keys with 400 and unknown sets and paths with 404 (set names are case-sensitive)', async () => {
      for (const path of ['/project(prj-apollo)', "/project('prj-apollo)", "/project('it's')", '/project()']) {
        const error = expectODataError(await od(server(), 'GET', path), 400, 'INVALID_REQUEST', 'Malformed key');
        expect(error.details[0].code).to.equal('INVALID_KEY');
      }
      expectODataError(await od(server(), 'GET', '/Project'), 404, 'NOT_FOUND', "'Project'");
      expectODataError(await od(server(), 'GET', '/no_such_set'), 404, 'NOT_FOUND', 'no_such_set');
      expectODataError(await od(server(), 'GET', "/project('prj-apollo')/name/extra"), 404, 'NOT_FOUND', '/odata/');
      expectODataError(await od(server(), 'GET', '/$nothing'), 404, 'NOT_FOUND');
    });

    it('answers a method a resource does not take with 400 and Allow', async () => {
      const res = await od(server(), 'POST', `/project${key('prj-apollo')}`, { name: 'x' });
      expectODataError(res, 400, 'INVALID_REQUEST', 'POST', 'PATCH');
      expect(res.headers.get('allow')).to.equal('GET, PATCH, PUT, DELETE, HEAD');
      expectODataError(await od(server(), 'DELETE', '/project'), 400, 'INVALID_REQUEST');
      expectODataError(await od(server(), 'POST', '/project/$count', {}), 400, 'INVALID_REQUEST');
    });

    it('takes JSON bodies only: another Content-Type, a malformed body, a missing one or an array is 400', async () => {
      expectODataError(
        await od(server(), 'POST', '/account', 'name=x', USERS.carol, { 'content-type': 'application/x-www-form-urlencoded' }),
        400,
        'INVALID_REQUEST',
        'Content-Type',
      );
      const malformed = expectODataError(
        await od(server(), 'POST', '/account', '{"name":', USERS.carol),
        400,
        'INVALID_REQUEST',
        'Malformed JSON',
      );
      expect(malformed.details).to.deep.equal([]);
      expectODataError(await od(server(), 'POST', '/account'), 400, 'INVALID_REQUEST', 'no body');
      expectODataError(await od(server(), 'POST', '/account', [{ name: 'a' }]), 400, 'INVALID_REQUEST', 'an array');
    });

    it('answers unknown and hidden properties in a body alike', async () => {
      const unknown = await od(server(), 'POST', '/project', { name: 'P', no_such_field: 1 }, USERS.alice);
      const hidden = await od(server(), 'POST', '/project', { name: 'P', actual_cost: 1 }, USERS.alice);
      const error = expectODataError(unknown, 400, unknown.body.error.code, 'no_such_field');
      expect(error.details.map((d: any) => d.target)).to.include('no_such_field');
      expect(hidden.status).to.equal(unknown.status);
      expect(JSON.stringify(hidden.body).split('actual_cost').join('no_such_field')).to.equal(JSON.stringify(unknown.body));
    });

    it('refuses system query options where they do not apply', async () => {
      const error = expectODataError(await od(server(), 'GET', `/project${key('prj-apollo')}?$top=1`), 400, 'INVALID_REQUEST', '$top');
      expect(error.details[0].target).to.equal('$top');
      expectODataError(await od(server(), 'POST', '/account?$select=name', { name: 'Q' }), 400, 'INVALID_REQUEST', '$select');
      expectODataError(await od(server(), 'GET', '/project/$count?$top=1'), 400, 'INVALID_REQUEST', '$top');
    });
  });
});
