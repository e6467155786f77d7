/**
 * The OData service as a real consumer sees it: @odata/client (a maintained OData V2/V4 client
 * from npm, `OData.New4`) against a real server on SQLite (:memory:), authenticated by the auth
 * plugin's API keys, which the client sends as a common header. Everything below goes through the
 * client's own API (EntitySet, SystemQueryOptions, ODataFilter, newRequest, the multipart and
 * JSON $batch); what the client does not do itself (parse $metadata) is read with its newRequest
 * and checked with the tests' EDMX parser.
 *
 * The client runs on Node's global fetch (its default fetch proxy); its polyfill
 * ('@odata/client/lib/polyfill') is not needed and not loaded, since it would replace the global
 * fetch of the whole test run with node-fetch. It does not percent-encode query option values
 * itself (fetch's URL parser encodes the spaces and quotes), so values here avoid '&', '#', '+'.
 */
import { EdmV4, OData } from '@odata/client';
import type { ODataV4 } from '@odata/client/lib/types_v4';
import { ODataServerError } from '@odata/client/lib/errors';
import { expect } from 'chai';
import type { TestServer } from '../../helpers/server';
import { startServer } from '../../helpers/server';
import { parseEdmx, plain, SQLITE } from './helpers';

const KEYS = {
  carol: 'odata-client-test-key-carol',
  alice: 'odata-client-test-key-alice',
};

/** A rejection of the client's call (it throws ODataServerError with the server's message). */
async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the call to be rejected');
}

interface Project {
  id: string;
  name: string;
  account: string | null;
  owner: string;
  status: string;
  priority: string;
  budget: number | null;
  actual_cost?: number | null;
  start_date: string | null;
  end_date: string | null;
  tags: string[] | null;
  settings: string | null;
  code: number;
  created_at: string;
  updated_at: string;
  account_nav?: { id: string; name: string } | null;
}

interface Task {
  id: string;
  title: string;
  project: string;
  assignee: string;
  status: string;
  estimate_hours: number | null;
  due_at: string | null;
  done: boolean;
  project_nav?: Partial<Project> | null;
}

describe('OData through a real client (@odata/client, SQLite)', () => {
  let s: TestServer;
  /** carol: a manager, sees everything. */
  let carol: ODataV4;
  /** alice: a member, sees the projects she owns and the tasks assigned to her, not actual_cost. */
  let alice: ODataV4;
  const client = (key?: string, headers: Record<string, string> = {}) =>
    OData.New4({ serviceEndpoint: `${s.url}/odata/`, commonHeaders: { ...(key ? { 'X-API-Key': key } : {}), ...headers } });

  before(async () => {
    s = await startServer({
      datasources: { default: SQLITE },
      plugins: {
        odata: true,
        auth: {
          apiKeys: [
            { key: KEYS.carol, user: { id: 'carol', roles: ['manager'] } },
            { key: KEYS.alice, user: { id: 'alice', roles: ['member'] } },
          ],
        },
      },
    });
    carol = client(KEYS.carol);
    alice = client(KEYS.alice);
  });
  after(() => s?.stop());

  describe('documents', () => {
    it('reads the service document', async () => {
      const doc: any = await carol.newRequest({ collection: '' });
      expect(doc['@odata.context']).to.equal('/odata/$metadata');
      expect(doc.value.map((set: any) => set.name)).to.include.members(['project', 'task', 'account', 'contact', 'expense', 'milestone']);
      expect(doc.value.find((set: any) => set.name === 'project')).to.deep.equal({ name: 'project', kind: 'EntitySet', url: 'project' });
    });

    it('reads $metadata: EDMX 4.0 with the entity sets, keys and navigation properties', async () => {
      const xml = (await carol.newRequest({ collection: '$metadata' })) as unknown;
      expect(xml, 'the client hands back the XML text').to.be.a('string');
      const edm = parseEdmx(xml as string);
      expect(edm.version).to.equal('4.0');
      expect(edm.sets.project.entityType).to.equal(`${edm.namespace}.project`);
      expect(edm.types.project.key).to.deep.equal(['id']);
      expect(edm.types.project.properties.budget.type).to.equal('Edm.Double');
      expect(edm.types.project.properties, 'a manager reads actual_cost').to.have.property('actual_cost');
      expect(edm.types.task.navigations.project_nav.type).to.equal(`${edm.namespace}.project`);
      expect(edm.sets.task.bindings).to.deep.equal({ project_nav: 'project' });
    });

    it('shows a member the $metadata of their own view (no actual_cost)', async () => {
      const edm = parseEdmx((await alice.newRequest({ collection: '$metadata' })) as unknown as string);
      expect(edm.types.project.properties).to.have.property('budget');
      expect(edm.types.project.properties).not.to.have.property('actual_cost');
    });
  });

  describe('queries', () => {
    it('filters, selects, orders, pages and counts an entity set', async () => {
      const tasks = carol.getEntitySet<Task>('task');
      const params = carol
        .newOptions<Task>()
        .filter(carol.newFilter<Task>().property('project').eq('prj-apollo').property('estimate_hours').gt(5))
        .select(['title', 'estimate_hours'])
        .orderby('estimate_hours', 'desc');
      const found = await tasks.query(params);
      expect(plain(found)).to.deep.equal([
        { id: 'tsk-apollo-api', title: 'Build the content API', estimate_hours: 24 },
        { id: 'tsk-apollo-design', title: 'Design the new landing page', estimate_hours: 12 },
        { id: 'tsk-apollo-launch', title: 'Plan the launch', estimate_hours: 6 },
      ]);
      for (const t of found) expect((t as any)['@odata.etag']).to.match(/^W\/".+"$/);
    });

    it('pages with $top and $skip, with the total in @odata.count (newRequest keeps the control information)', async () => {
      const params = carol
        .newOptions<Task>()
        .filter(carol.newFilter<Task>().property('status').in(['todo', 'doing']))
        .select(['title'])
        .orderby('title', 'asc')
        .top(2)
        .skip(1)
        .count(true);
      const page: any = await carol.newRequest({ collection: 'task', params });
      expect(page['@odata.context']).to.equal('/odata/$metadata#task(title)');
      expect(page['@odata.count']).to.equal(4);
      // todo / doing, by title: Build the content API, Kick-off meeting with Globex, Plan the launch, Survey sensor vendors.
      expect(page.value.map((t: Task) => t.title)).to.deep.equal(['Kick-off meeting with Globex', 'Plan the launch']);
      expect(page).not.to.have.property('@odata.nextLink');
    });

    it('orders on several properties', async () => {
      const params = carol
        .newOptions<Task>()
        .select(['project', 'title'])
        .orderbyMulti([
          { field: 'project', order: 'asc' },
          { field: 'estimate_hours', order: 'asc' },
        ]);
      const ids = (await carol.getEntitySet<Task>('task').query(params)).map((t) => t.id);
      expect(ids).to.deep.equal([
        'tsk-apollo-launch',
        'tsk-apollo-design',
        'tsk-apollo-api',
        'tsk-gemini-kickoff',
        'tsk-gemini-research',
        'tsk-mercury-handover',
      ]);
    });

    it('counts ($count=true with $top=1), with and without a filter', async () => {
      const projects = carol.getEntitySet<Project>('project');
      expect(await projects.count()).to.equal(3);
      expect(await projects.count(carol.newFilter<Project>().property('status').ne('done'))).to.equal(2);
      expect(await carol.getEntitySet<Task>('task').count({ assignee: 'bob' })).to.equal(3);
      // The $count segment answers text/plain, which the client hands back as text.
      expect(await carol.newRequest({ collection: 'task/$count' })).to.equal('6');
    });

    it("filters on dates and date-times with the client's V4 literals", async () => {
      const projects = await carol.getEntitySet<Project>('project').query(
        carol
          .newOptions<Project>()
          .filter(
            carol
              .newFilter<Project>()
              .property('start_date')
              .ge(EdmV4.Date.from(new Date('2025-01-01T00:00:00Z'))),
          )
          .select(['name'])
          .orderby('name', 'asc'),
      );
      expect(projects.map((p) => p.id)).to.deep.equal(['prj-apollo', 'prj-gemini']);
      const tasks = await carol.getEntitySet<Task>('task').query(
        carol
          .newOptions<Task>()
          .filter(
            carol
              .newFilter<Task>()
              .property('due_at')
              .lt(EdmV4.DateTimeOffset.from(new Date('2025-03-01T00:00:00Z'))),
          )
          .select(['title'])
          .orderby('due_at', 'asc'),
      );
      expect(tasks.map((t) => t.id)).to.deep.equal(['tsk-mercury-handover', 'tsk-apollo-design']);
    });

    it("searches ($search, without the client's default %...% wrapping)", async () => {
      const found = await carol.getEntitySet<Task>('task').query(carol.newOptions<Task>().search('launch', false).select(['title']));
      expect(plain(found)).to.deep.equal([{ id: 'tsk-apollo-launch', title: 'Plan the launch' }]);
    });

    it("applies the caller's permissions: a member sees her projects, without actual_cost", async () => {
      const mine = await alice.getEntitySet<Project>('project').query(alice.newOptions<Project>().orderby('name', 'asc'));
      expect(mine.map((p) => p.id)).to.deep.equal(['prj-apollo', 'prj-mercury']);
      for (const p of mine) expect(p).not.to.have.property('actual_cost');
      expect(await alice.getEntitySet<Project>('project').count()).to.equal(2);
    });

    it('is refused without an API key, and with a wrong one', async () => {
      const anonymous = await rejection(client().getEntitySet('project').query());
      expect(anonymous).to.be.instanceOf(ODataServerError);
      const wrong = await rejection(client('not-a-key-of-this-server').getEntitySet('project').query());
      expect(wrong).to.be.instanceOf(ODataServerError);
      expect(wrong.message).not.to.include('not-a-key-of-this-server');
    });
  });

  describe('entities by key and $expand', () => {
    it('retrieves an entity by key, whole and with $select', async () => {
      const projects = carol.getEntitySet<Project>('project');
      const apollo = await projects.retrieve('prj-apollo');
      expect(apollo).to.include({
        id: 'prj-apollo',
        name: 'Apollo Website Relaunch',
        account: 'acc-acme',
        status: 'active',
        budget: 120000,
        start_date: '2025-01-15',
      });
      expect((apollo as any)['@odata.context']).to.equal('/odata/$metadata#project/$entity');
      expect(apollo.tags).to.deep.equal(['frontend', 'backend', 'customer']);
      expect(JSON.parse(apollo.settings!)).to.deep.equal({ notify_on_overrun: true, channel: '#apollo' });
      const slim = await projects.retrieve('prj-apollo', carol.newOptions<Project>().select(['name', 'status']));
      expect(plain(slim)).to.deep.equal({ id: 'prj-apollo', name: 'Apollo Website Relaunch', status: 'active' });
    });

    it("rejects an unknown key, and a record out of the caller's scope, with NOT_FOUND", async () => {
      const missing = await rejection(carol.getEntitySet('project').retrieve('nope'));
      expect(missing).to.be.instanceOf(ODataServerError);
      expect(missing.message).to.include("'nope'");
      const hidden = await rejection(alice.getEntitySet('project').retrieve('prj-gemini'));
      expect(hidden.message.split('prj-gemini').join('nope')).to.equal(missing.message);
    });

    it('expands a navigation property on an entity set', async () => {
      const params = carol.newOptions<Project>().select(['name', 'account']).expand('account_nav').orderby('name', 'asc');
      const projects = await carol.getEntitySet<Project>('project').query(params);
      expect(projects.map((p) => [p.id, p.account, p.account_nav?.name])).to.deep.equal([
        ['prj-apollo', 'acc-acme', 'Acme Corporation'],
        ['prj-gemini', 'acc-globex', 'Globex Industries'],
        ['prj-mercury', 'acc-initech', 'Initech'],
      ]);
    });

    it('expands nested navigation properties with their own options on an entity by key', async () => {
      const params = carol.newOptions().select(['title']).expand('project_nav($select=name;$expand=account_nav($select=name))');
      const task = await carol.getEntitySet<Task>('task').retrieve('tsk-apollo-api', params);
      expect(plain(task)).to.deep.equal({
        id: 'tsk-apollo-api',
        title: 'Build the content API',
        project_nav: { id: 'prj-apollo', name: 'Apollo Website Relaunch', account_nav: { id: 'acc-acme', name: 'Acme Corporation' } },
      });
    });
  });

  describe('writes', () => {
    it('creates, updates (PATCH) and deletes an entity', async () => {
      const projects = carol.getEntitySet<Project>('project');
      const created = await projects.create({
        name: '  Client Project ',
        account: 'acc-acme',
        budget: 5000,
        tags: ['research'],
        settings: { nested: [1, 2] } as any,
      });
      expect(created.id).to.be.a('string').and.not.equal('');
      expect(created).to.include({ name: 'Client Project', owner: 'carol', status: 'planning', priority: 'medium', budget: 5000 });
      expect(created.code).to.be.a('number');
      expect(new Date(created.created_at).toString()).not.to.equal('Invalid Date');
      expect(JSON.parse(created.settings!)).to.deep.equal({ nested: [1, 2] });

      await projects.update(created.id, { status: 'active', budget: 6500 });
      const updated = await projects.retrieve(created.id);
      expect(updated).to.include({ status: 'active', budget: 6500, name: 'Client Project' });
      expect(Date.parse(updated.updated_at)).to.be.at.least(Date.parse(created.updated_at));
      expect(await projects.count(carol.newFilter<Project>().property('name').eq('Client Project'))).to.equal(1);

      await projects.delete(created.id);
      const gone = await rejection(projects.retrieve(created.id));
      expect(gone.message).to.include(created.id);
      expect(await projects.count(carol.newFilter<Project>().property('name').eq('Client Project'))).to.equal(0);
    });

    it('sets a relation with @odata.bind', async () => {
      const tasks = carol.getEntitySet<Task>('task');
      const created = await tasks.create({
        title: 'Bound by the client',
        'project_nav@odata.bind': "project('prj-gemini')",
      } as Partial<Task>);
      expect(created).to.include({ title: 'Bound by the client', project: 'prj-gemini', assignee: 'carol', status: 'todo', done: false });
      const back = await tasks.retrieve(created.id, carol.newOptions().select(['title']).expand('project_nav($select=name)'));
      expect(back.project_nav).to.deep.equal({ id: 'prj-gemini', name: 'Gemini Plant Monitoring' });
      await tasks.delete(created.id);
    });

    it('rejects an invalid create and an invalid update with the validation message, and changes nothing', async () => {
      const tasks = carol.getEntitySet<Task>('task');
      const before = await tasks.count();
      const missing = await rejection(tasks.create({ project: 'prj-apollo' }));
      expect(missing).to.be.instanceOf(ODataServerError);
      expect(missing.message).to.include('title');
      expect(await tasks.count()).to.equal(before);
      // project.validation.yml: done cannot be left.
      const flow = await rejection(carol.getEntitySet<Project>('project').update('prj-mercury', { status: 'active' }));
      expect(flow.message).to.include('This status change is not allowed');
      expect((await carol.getEntitySet<Project>('project').retrieve('prj-mercury')).status).to.equal('done');
    });

    it('applies the permissions to writes: a member may not delete a project', async () => {
      const denied = await rejection(alice.getEntitySet('project').delete('prj-mercury'));
      expect(denied).to.be.instanceOf(ODataServerError);
      expect(denied.message).to.match(/delete/i);
      expect(await carol.getEntitySet('project').count()).to.equal(3);
    });
  });

  describe('$batch', () => {
    it('runs a multipart batch: a read, and writes each in a changeset', async () => {
      const tasks = carol.getEntitySet<Task>('task');
      const [read, create, update] = await carol.execBatchRequests([
        carol.newBatchRequest({ collection: 'project', id: 'prj-apollo', params: carol.newOptions().select(['name', 'status']) }),
        carol.newBatchRequest<Task>({
          collection: 'task',
          method: 'POST',
          entity: { title: 'Batched task', project: 'prj-apollo', estimate_hours: 3 },
        }),
        carol.newBatchRequest<Task>({ collection: 'task', method: 'PATCH', id: 'tsk-apollo-launch', entity: { status: 'doing' } }),
      ]);
      expect(read.status).to.equal(200);
      expect(plain(await read.json())).to.deep.equal({ id: 'prj-apollo', name: 'Apollo Website Relaunch', status: 'active' });
      expect(create.status).to.equal(201);
      const created: any = await create.json();
      expect(created).to.include({ title: 'Batched task', project: 'prj-apollo', estimate_hours: 3, assignee: 'carol' });
      expect(update.status).to.equal(200);
      expect(await update.json()).to.include({ id: 'tsk-apollo-launch', status: 'doing' });

      expect((await tasks.retrieve(created.id)).title).to.equal('Batched task');
      expect((await tasks.retrieve('tsk-apollo-launch')).status).to.equal('doing');
      await carol.execBatchRequests([
        carol.newBatchRequest({ collection: 'task', method: 'DELETE', id: created.id }),
        carol.newBatchRequest<Task>({ collection: 'task', method: 'PATCH', id: 'tsk-apollo-launch', entity: { status: 'todo' } }),
      ]);
      expect(await tasks.count({ title: 'Batched task' })).to.equal(0);
    });

    it('answers a failing changeset with its error and stops there, unless Prefer: odata.continue-on-error', async () => {
      const batch = (c: ODataV4) =>
        c.execBatchRequests([
          c.newBatchRequest<Task>({ collection: 'task', method: 'POST', entity: { project: 'prj-apollo' } }),
          c.newBatchRequest({ collection: 'task', id: 'tsk-apollo-api', params: c.newOptions().select(['title']) }),
        ]);
      const stopped = await batch(carol);
      expect(stopped.map((r) => r.status)).to.deep.equal([400]);
      const error: any = await stopped[0].json();
      expect(error.error).to.include({ code: 'VALIDATION_ERROR' });
      expect(error.error.details).to.deep.include({ code: 'REQUIRED_FIELD', message: 'title: is required', target: 'title' });

      const going = await batch(client(KEYS.carol, { Prefer: 'odata.continue-on-error' }));
      expect(going.map((r) => r.status)).to.deep.equal([400, 200]);
      expect(((await going[1].json()) as any).title).to.equal('Build the content API');
    });

    it('runs a JSON batch (4.01) whose atomicity group references a new entity by its request id', async () => {
      const [create, update] = await carol.execBatchRequestsJson([
        carol.newBatchRequest({
          collection: 'project',
          method: 'POST',
          entity: { name: 'Batched project', account: 'acc-globex' },
          atomicityGroup: 'g1',
          requestId: 'p',
        }),
        carol.newBatchRequest({
          collection: '$p',
          method: 'PATCH',
          entity: { status: 'active' },
          atomicityGroup: 'g1',
          requestId: 'u',
          dependsOn: ['p'],
        }),
      ]);
      expect([create.status, update.status]).to.deep.equal([201, 200]);
      const created: any = await create.json();
      expect(created).to.include({ name: 'Batched project', status: 'planning' });
      expect(await update.json()).to.include({ id: created.id, status: 'active' });
      const stored = await carol.getEntitySet<Project>('project').retrieve(created.id);
      expect(stored).to.include({ name: 'Batched project', status: 'active', account: 'acc-globex' });
      await carol.getEntitySet('project').delete(created.id);
    });

    it('rolls a JSON atomicity group back whole when one of its requests fails', async () => {
      const tasks = carol.getEntitySet<Task>('task');
      const before = await tasks.count();
      const responses = await carol.execBatchRequestsJson([
        carol.newBatchRequest<Task>({
          collection: 'task',
          method: 'POST',
          entity: { title: 'Rolled back', project: 'prj-gemini' },
          atomicityGroup: 'g1',
          requestId: 'a',
        }),
        carol.newBatchRequest<Task>({
          collection: 'task',
          method: 'PATCH',
          id: 'tsk-gemini-kickoff',
          entity: { status: 'done' },
          atomicityGroup: 'g1',
          requestId: 'b',
        }),
        carol.newBatchRequest<Task>({
          collection: 'task',
          method: 'POST',
          entity: { project: 'prj-gemini' },
          atomicityGroup: 'g1',
          requestId: 'c',
        }),
      ]);
      const byId = Object.fromEntries(responses.map((r: any) => [r.raw.id, r]));
      expect(byId.c.status).to.equal(400);
      expect((await byId.c.json()).error.code).to.equal('VALIDATION_ERROR');
      // The others of the group were rolled back: 424 Failed Dependency.
      expect([byId.a.status, byId.b.status]).to.deep.equal([424, 424]);
      expect(await tasks.count()).to.equal(before);
      expect(await tasks.count({ title: 'Rolled back' })).to.equal(0);
      expect((await tasks.retrieve('tsk-gemini-kickoff')).status).to.equal('todo');
    });
  });
});
