/**
 * The OData service document and $metadata over real HTTP, the metadata read with a real XML
 * parser: EDMX 4.0, the type mapping, keys, navigation properties and bindings, what each caller
 * is shown, caching (ETag, a rebuild when a label changes) and the unknown-route answers.
 */
import { expect } from 'chai';
import { USERS, type TestServer } from '../../helpers/server';
import { BASE, describeOnDatabases, expectODataError, od, ok, parseEdmx, type Edm } from './helpers';

const ALL = ['account', 'contact', 'expense', 'milestone', 'project', 'task'];

describeOnDatabases('OData service document and $metadata', (server) => {
  const metadata = async (user = USERS.carol): Promise<Edm> => {
    const res = await od(server(), 'GET', '/$metadata', undefined, user);
    expect(res.status, String(res.body)).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/xml/);
    expect(res.headers.get('odata-version')).to.equal('4.0');
    return parseEdmx(res.body);
  };

  it('lists the entity sets in the service document', async () => {
    const body = ok(await od(server(), 'GET', ''));
    expect(body['@odata.context']).to.equal(`${BASE}/$metadata`);
    expect(body.value).to.deep.equal(ALL.map((name) => ({ name, kind: 'EntitySet', url: name })));
    expect(ok(await od(server(), 'GET', '/'))).to.deep.equal(body);
  });

  it('lists only the sets the caller may read, in the service document and in $metadata', async () => {
    const member = ok(await od(server(), 'GET', '', undefined, USERS.alice));
    expect(member.value.map((s: any) => s.name)).to.deep.equal(ALL.filter((n) => n !== 'expense'));
    const edm = await metadata(USERS.alice);
    expect(Object.keys(edm.sets).sort()).to.deep.equal(ALL.filter((n) => n !== 'expense'));
    expect(edm.types).not.to.have.property('expense');
    // A field the caller may not read is not a property for them.
    expect(edm.types.project.properties).not.to.have.property('actual_cost');
    expect((await metadata()).types.project.properties).to.have.property('actual_cost');
    // No role: nothing guarded; the open objects stay.
    expect(Object.keys((await metadata(USERS.nobody)).sets).sort()).to.deep.equal(['account', 'contact', 'milestone']);
  });

  it('is EDMX 4.0 with one schema, a Container and an entity type keyed by id per object', async () => {
    const edm = await metadata();
    expect(edm.version).to.equal('4.0');
    expect(edm.namespace).to.equal('ObjectQL');
    expect(edm.container).to.equal('Container');
    expect(Object.keys(edm.types).sort()).to.deep.equal(ALL);
    for (const name of ALL) {
      expect(edm.sets[name].entityType, name).to.equal(`ObjectQL.${name}`);
      expect(edm.types[name].key, name).to.deep.equal(['id']);
      expect(edm.types[name].properties.id, name).to.deep.equal({ type: 'Edm.String', nullable: false, json: false });
      expect(edm.types[name].properties.created_at.type, name).to.equal('Edm.DateTimeOffset');
    }
    expect(edm.types.project.annotations).to.deep.include({ 'Core.Description': 'Project' });
  });

  it("types properties by the spec's mapping; required fields are not nullable", async () => {
    const { types } = await metadata();
    const type = (object: string, field: string) => types[object].properties[field];
    expect(type('project', 'name')).to.deep.equal({ type: 'Edm.String', nullable: false, json: false });
    expect(type('account', 'website').type).to.equal('Edm.String');
    expect(type('account', 'email').type).to.equal('Edm.String');
    expect(type('project', 'status')).to.deep.include({ type: 'Edm.String', nullable: false });
    expect(type('project', 'budget').type).to.equal('Edm.Double');
    expect(type('account', 'annual_revenue').type).to.equal('Edm.Double');
    expect(type('task', 'estimate_hours').type).to.equal('Edm.Double');
    expect(type('project', 'code').type).to.equal('Edm.Int32');
    expect(type('account', 'active').type).to.equal('Edm.Boolean');
    expect(type('project', 'start_date').type).to.equal('Edm.Date');
    expect(type('task', 'due_at').type).to.equal('Edm.DateTimeOffset');
    expect(type('task', 'start_time').type).to.equal('Edm.TimeOfDay');
    expect(type('project', 'tags').type).to.equal('Collection(Edm.String)');
    // json and file values are JSON text, marked as such.
    expect(type('project', 'settings')).to.deep.equal({ type: 'Edm.String', nullable: true, json: true });
    expect(type('expense', 'receipt')).to.deep.equal({ type: 'Edm.String', nullable: true, json: true });
  });

  it("has a navigation property beside each relation's foreign key, bound to its entity set", async () => {
    const { types, sets } = await metadata();
    const toOne = (type: string, partner: string, property: string) => ({
      type: `ObjectQL.${type}`,
      nullable: true,
      partner,
      constraint: { property, referenced: 'id' },
    });
    expect(types.task.properties.project).to.deep.equal({ type: 'Edm.String', nullable: false, json: false });
    expect(types.task.navigations).to.deep.equal({ project_nav: toOne('project', 'tasks', 'project') });
    expect(sets.task.bindings).to.deep.equal({ project_nav: 'project' });
    expect(types.project.navigations).to.deep.include({ account_nav: toOne('account', 'projects', 'account') });
    expect(sets.project.bindings).to.deep.include({ account_nav: 'account' });
    // The one-to-many navigation properties are in relations-metadata.test.ts.
    expect(Object.keys(types.account.navigations).sort()).to.deep.equal(['contacts', 'projects']);
  });

  it('has no navigation property to a set the caller cannot read', async () => {
    const { types, sets } = await metadata(USERS.nobody);
    // contact.account → account stays (open); milestone.project → project goes (nobody reads projects).
    expect(types.contact.navigations).to.have.keys('account_nav');
    expect(types.milestone.properties).to.have.property('project');
    expect(types.milestone.navigations).to.deep.equal({});
    expect(sets.milestone.bindings).to.deep.equal({});
  });

  it('answers If-None-Match with 304; callers with the same view share one document', async () => {
    const first = await od(server(), 'GET', '/$metadata', undefined, USERS.alice);
    const etag = first.headers.get('etag')!;
    expect(etag).to.match(/^".+"$/);
    expect(first.headers.get('cache-control')).to.equal('private, no-cache');
    const again = await od(server(), 'GET', '/$metadata', undefined, USERS.alice, { 'if-none-match': etag });
    expect(again.status).to.equal(304);
    expect(again.body).to.equal(undefined);
    expect((await od(server(), 'GET', '/$metadata', undefined, USERS.bob)).headers.get('etag'), "bob has alice's roles").to.equal(etag);
    expect((await od(server(), 'GET', '/$metadata', undefined, USERS.carol)).headers.get('etag')).not.to.equal(etag);
  });

  it("rebuilds the document when an object's label or description changes", async () => {
    const s: TestServer = server();
    const before = await od(s, 'GET', '/$metadata');
    s.kernel.registry.setObjectInfo('milestone', { label: 'Checkpoint', description: 'A dated <goal> & "target"' });
    try {
      const after = await od(s, 'GET', '/$metadata');
      expect(after.headers.get('etag')).not.to.equal(before.headers.get('etag'));
      expect(parseEdmx(after.body).types.milestone.annotations).to.deep.equal({
        'Core.Description': 'Checkpoint',
        'Core.LongDescription': 'A dated <goal> & "target"',
      });
    } finally {
      s.kernel.registry.setObjectInfo('milestone', { label: 'Milestone', description: '' });
    }
  });

  it('answers other methods and options on the documents with 400', async () => {
    expectODataError(await od(server(), 'POST', '/$metadata', {}), 400, 'INVALID_REQUEST');
    expectODataError(await od(server(), 'DELETE', ''), 400, 'INVALID_REQUEST');
    expectODataError(await od(server(), 'GET', '/$metadata?$top=1'), 400, 'INVALID_REQUEST', '$top');
  });
});
