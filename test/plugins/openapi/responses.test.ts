/**
 * Live answers against the served document, checked by a maintained validator (openapi-backend):
 * every REST and JSON-RPC route with each list option (fields, expand, groupBy/aggregate), the bulk
 * forms and the error answers, the metadata routes and a file upload. Each request is validated
 * too, so the documented inputs and examples are what the server accepts; and each record's keys
 * are ones its schema declares (the response schemas stay open, so the validator alone would let an
 * undeclared key through).
 */
import { expect } from 'chai';
import OpenAPIBackend from 'openapi-backend';
import { identityHeader, startServer, type TestServer } from '../../helpers/server';
import { protocolPlugins } from './helpers';

const DOC = '/api/objectql/openapi.json';
const ADMIN = { id: 'admin', roles: ['admin'] };
const VIEWER = { id: 'vera', roles: ['viewer'] };
const OBJECTS = ['account', 'contact', 'expense', 'milestone', 'project', 'task'];
/** The formats the document uses, checked (ajv ignores a format it does not know). */
const FORMATS = {
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  email: /^[^\s@]+@[^\s@]+$/,
  uri: /^[a-z][a-z0-9+.-]*:\S+$/i,
  int32: true,
  binary: true,
} as const;
const schemaName = (object: string) => object[0].toUpperCase() + object.slice(1);

type Res = { status: number; body: any; headers: Headers };

describe('Live answers match the OpenAPI document (openapi-backend)', () => {
  let s: TestServer;
  let doc: any;
  let api: OpenAPIBackend;
  const checked = new Set<string>();

  before(async function () {
    // Compiling every schema of the document (ajv, validate: true) takes seconds on a loaded machine.
    this.timeout(120_000);
    s = await startServer({ plugins: protocolPlugins() }, { identityFromHeader: true });
    doc = (await s.request('GET', DOC)).body;
    // One extra operation per object answering its <Object>Partial, to check each record alone: in a
    // list, a flat record would also pass as a GroupRow (whose keys are the request's).
    const definition = structuredClone(doc);
    for (const object of OBJECTS) {
      const schema = { $ref: `#/components/schemas/${schemaName(object)}Partial` };
      definition.paths[`/__test/${object}`] = {
        get: {
          operationId: `record_${object}`,
          responses: { 200: { description: 'a record', content: { 'application/json': { schema } } } },
        },
      };
    }
    api = new OpenAPIBackend({ definition, quick: false, validate: true, ajvOpts: { formats: FORMATS } });
    await api.init();
  });
  after(async () => {
    await s?.stop();
  });

  /** Sends the request (validated against the operation first), then validates the answer; returns it. */
  async function call(
    operationId: string,
    method: string,
    path: string,
    body?: unknown,
    user: object | null = ADMIN,
    status?: number,
    bodyValid = true,
  ): Promise<Res> {
    const [pathname, query] = path.split('?');
    const headers = { 'content-type': 'application/json', ...identityHeader(user) };
    if (body !== undefined) {
      const request = api.validateRequest({ method, path: pathname, query: query ?? '', headers, body }, operationId);
      if (bodyValid) expect(request.errors ?? [], `request of ${operationId}: ${JSON.stringify(request.errors)}`).to.deep.equal([]);
      else expect((request.errors ?? []).length, `the document refuses the body of ${operationId} too`).to.be.greaterThan(0);
    }
    const res = await s.request(method, path, body, identityHeader(user));
    if (status !== undefined) expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.equal(status);
    const op = api.getOperation(operationId)!;
    expect(op.responses, `${operationId} documents ${res.status}`).to.have.property(String(res.status));
    const result = api.validateResponse(res.body, operationId, res.status);
    expect(
      result.errors ?? [],
      `${method} ${path} → ${res.status}: ${JSON.stringify(result.errors)}\n${JSON.stringify(res.body).slice(0, 800)}`,
    ).to.deep.equal([]);
    checked.add(`${operationId} ${res.status}`);
    return res;
  }

  /** Every key of a record read from `object` is a property of `<Object>Partial` (or @type), down through expansions. */
  function declaredKeys(object: string, record: Record<string, unknown>): void {
    const { '@type': _type, ...fields } = record;
    const alone = api.validateResponse(fields, `record_${object}`, 200);
    expect(alone.errors ?? [], `${object} record: ${JSON.stringify(alone.errors)}`).to.deep.equal([]);
    const schema = doc.components.schemas[`${schemaName(object)}Partial`];
    for (const [key, value] of Object.entries(record)) {
      if (key === '@type') continue;
      expect(schema.properties, `${object}Partial declares '${key}'`).to.have.property(key);
      const ref: string | undefined = (
        schema.properties[key].oneOf ??
        schema.properties[key].items?.oneOf ?? [schema.properties[key].items]
      )
        .map((x: any) => x?.$ref)
        .find(Boolean);
      const target = ref && /#\/components\/schemas\/(\w+)Partial$/.exec(ref)?.[1].toLowerCase();
      if (!target || !value || typeof value !== 'object') continue;
      for (const nested of Array.isArray(value) ? value : [value]) if (nested && typeof nested === 'object') declaredKeys(target, nested);
    }
  }

  /** The schema's create example with each placeholder id replaced by a real one. */
  async function createBody(object: string): Promise<Record<string, unknown>> {
    const example = structuredClone(doc.components.schemas[`${schemaName(object)}Create`].example);
    for (const [key, value] of Object.entries(example)) {
      const m = typeof value === 'string' ? /^<(\w+) id>$/.exec(value) : null;
      if (m) example[key] = (await s.request('GET', `/api/data/${m[1]}?top=1`, undefined, identityHeader(ADMIN))).body.items[0].id;
    }
    if (object === 'account' || object === 'project') example.name = `${example.name} ${Math.random().toString(36).slice(2)}`;
    return example;
  }

  it('the validator is not blind: a lookup holding a number, a row of neither a record nor a group, an aggregate row on get', () => {
    const meta = { total: 1, page: 1, size: 1, pages: 1, has_next: false };
    const refused = (body: unknown, operation: string) => (api.validateResponse(body, operation, 200).errors ?? []).length;
    expect(refused({ id: 'x', account: 5 }, 'record_project')).to.be.greaterThan(0);
    expect(refused({ id: 'x', start_date: 'soon' }, 'record_project')).to.be.greaterThan(0);
    expect(refused({ items: [{ status: 'active', nested: { a: 1 } }], meta }, 'rest_list_project')).to.be.greaterThan(0);
    expect(refused({ status: 'active', count: 1, '@type': 'project' }, 'rest_get_project')).to.be.greaterThan(0);
    expect(api.validateResponse({ items: [{ status: 'active', count: 1 }], meta }, 'rest_list_project', 200).errors ?? []).to.deep.equal(
      [],
    );
  });

  describe('REST', () => {
    for (const object of OBJECTS) {
      it(`${object}: list, fields, expand of every lookup, get, create (the example), update, delete`, async () => {
        const list = await call(`rest_list_${object}`, 'GET', `/api/data/${object}?top=5`, undefined, ADMIN, 200);
        list.body.items.forEach((r: any) => declaredKeys(object, r));
        const fields = doc.components.schemas[`${schemaName(object)}Partial`].properties;
        const own = Object.keys(fields).filter(
          (k) => !['id', 'created_at', 'created_by', 'updated_at', 'updated_by'].includes(k) && !k.includes('@'),
        );
        const partial = await call(`rest_list_${object}`, 'GET', `/api/data/${object}?fields=${own[0]}`, undefined, ADMIN, 200);
        for (const r of partial.body.items) expect(Object.keys(r)).to.have.members(Object.keys(r).length === 1 ? ['id'] : ['id', own[0]]);
        const lookups = own.filter((k) => fields[k].oneOf || fields[k].items?.oneOf);
        for (const lookup of lookups) {
          const expanded = await call(
            `rest_list_${object}`,
            'GET',
            `/api/data/${object}?expand=${lookup}&fields=${lookup}`,
            undefined,
            ADMIN,
            200,
          );
          expanded.body.items.forEach((r: any) => declaredKeys(object, r));
        }
        const created = await call(`rest_create_${object}`, 'POST', `/api/data/${object}`, await createBody(object), ADMIN, 201);
        const id = created.body.id;
        const got = await call(`rest_get_${object}`, 'GET', `/api/data/${object}/${id}`, undefined, ADMIN, 200);
        declaredKeys(object, got.body);
        const update = doc.components.schemas[`${schemaName(object)}Update`].example;
        await call(`rest_patch_${object}`, 'PATCH', `/api/data/${object}/${id}`, update, ADMIN, 200);
        await call(`rest_update_${object}`, 'PUT', `/api/data/${object}/${id}`, update, ADMIN, 200);
        await call(`rest_delete_${object}`, 'DELETE', `/api/data/${object}/${id}`, undefined, ADMIN, 200);
      });
    }

    it('get with fields and a nested expand map', async () => {
      const expand = encodeURIComponent(
        JSON.stringify({ project: { fields: ['name', 'account'], expand: { account: { fields: ['name'] } } } }),
      );
      const res = await call(
        'rest_get_task',
        'GET',
        `/api/data/task/tsk-apollo-design?fields=title,project&expand=${expand}`,
        undefined,
        ADMIN,
        200,
      );
      expect(res.body.project.account).to.include.keys('id', 'name');
      declaredKeys('task', res.body);
    });

    it('groupBy and aggregate rows (a count, a sum, a max of a date, a countdistinct)', async () => {
      const aggregate = encodeURIComponent(
        JSON.stringify([
          { func: 'count', alias: 'n' },
          { func: 'sum', field: 'budget', alias: 'total' },
          { func: 'max', field: 'start_date' },
          { func: 'countdistinct', field: 'owner', alias: 'owners' },
        ]),
      );
      const res = await call(
        'rest_list_project',
        'GET',
        `/api/data/project?groupBy=status,account&aggregate=${aggregate}`,
        undefined,
        ADMIN,
        200,
      );
      expect(res.body.items[0]).to.include.keys('status', 'account', 'n', 'total', 'max_start_date', 'owners').and.not.have.property('id');
    });

    it('the list examples of every object are accepted', async () => {
      for (const object of OBJECTS) {
        const params = doc.paths[`/api/data/${object}`].get.parameters.filter((p: any) => p.example !== undefined);
        const query = params.filter((p: any) => !['groupBy', 'aggregate', 'expand'].includes(p.name));
        const qs = query.map((p: any) => `${p.name}=${encodeURIComponent(p.example)}`).join('&');
        await call(`rest_list_${object}`, 'GET', `/api/data/${object}?${qs}`, undefined, ADMIN, 200);
        const group = params.filter((p: any) => p.name === 'groupBy' || p.name === 'aggregate' || p.name === 'filter');
        const gs = group.map((p: any) => `${p.name}=${encodeURIComponent(p.example)}`).join('&');
        await call(`rest_list_${object}`, 'GET', `/api/data/${object}?${gs}`, undefined, ADMIN, 200);
        const expand = params.find((p: any) => p.name === 'expand');
        if (expand) await call(`rest_list_${object}`, 'GET', `/api/data/${object}?expand=${expand.example}`, undefined, ADMIN, 200);
      }
    });

    it('reverse relations in expand: an array of the related records and <relation>@count', async () => {
      const expand = encodeURIComponent(
        JSON.stringify({ tasks: { fields: ['title', 'status'], top: 1, count: true, expand: { project: { fields: ['name'] } } } }),
      );
      const res = await call('rest_get_project', 'GET', `/api/data/project/prj-apollo?fields=name&expand=${expand}`, undefined, ADMIN, 200);
      expect(res.body.tasks).to.be.an('array').with.length(1);
      expect(res.body['tasks@count']).to.be.greaterThan(1);
      declaredKeys('project', res.body);
      const args = {
        filters: [['id', '=', 'acc-acme']],
        expand: { projects: { fields: ['name'], expand: { tasks: { fields: ['title'] } } } },
      };
      const list = await call('rpc', 'POST', '/api/objectql', { op: 'find', object: 'account', args }, ADMIN, 200);
      expect(list.body.items[0].projects[0].tasks).to.have.length.greaterThan(0);
      list.body.items.forEach((r: any) => declaredKeys('account', r));
    });

    it('bulk create (one item failing), bulk update, bulk delete', async () => {
      const tag = Math.random().toString(36).slice(2);
      const res = await call(
        'rest_create_account',
        'POST',
        '/api/data/account',
        [{ name: `Bulk ${tag}` }, { name: `Bulk2 ${tag}` }],
        ADMIN,
        201,
      );
      expect(res.body.count).to.equal(2);
      const none = await s.request('POST', '/api/data/account', [{ industry: 'technology' }], identityHeader(ADMIN));
      expect(none.status).to.equal(200);
      expect(api.validateResponse(none.body, 'rest_create_account', 200).errors ?? []).to.deep.equal([]);
      await call(
        'rest_bulkUpdate_account',
        'POST',
        '/api/data/account/bulk-update',
        { filters: { name: `Bulk ${tag}` }, data: { phone: '+1 555 0199' } },
        ADMIN,
        200,
      );
      await call('rest_bulkDelete_account', 'POST', '/api/data/account/bulk-delete', { filters: [['name', 'endswith', tag]] }, ADMIN, 200);
    });

    it('errors: 400 bad filter, 400 validation, 401 anonymous, 403 viewer, 404 unknown id, 409 duplicate', async () => {
      await call('rest_list_project', 'GET', '/api/data/project?filter=[["nope","=",1]]', undefined, ADMIN, 400);
      await call('rest_create_project', 'POST', '/api/data/project', { budget: 5 }, ADMIN, 400, false);
      await call('rest_list_project', 'GET', '/api/data/project', undefined, null, 401);
      await call('rest_create_project', 'POST', '/api/data/project', { name: 'Viewer made' }, VIEWER, 403);
      await call('rest_get_project', 'GET', '/api/data/project/no-such-id', undefined, ADMIN, 404);
      await call('rest_create_account', 'POST', '/api/data/account', { name: 'Acme Corporation' }, ADMIN, 409);
    });
  });

  describe('JSON-RPC', () => {
    const rpc = (body: any, user: object | null = ADMIN, status?: number) => call('rpc', 'POST', '/api/objectql', body, user, status);

    it('find (plain, fields, expand, groupBy/aggregate), findOne, count', async () => {
      for (const object of OBJECTS) {
        const res = await rpc({ op: 'find', object, args: { top: 3 } }, ADMIN, 200);
        res.body.items.forEach((r: any) => declaredKeys(object, r));
      }
      const expanded = await rpc(
        { op: 'find', object: 'task', args: { fields: ['title'], expand: { project: { expand: { account: {} } } } } },
        ADMIN,
        200,
      );
      expect(expanded.body.items[0].project.account).to.have.property('name');
      expanded.body.items.forEach((r: any) => declaredKeys('task', r));
      const groups = await rpc(
        {
          op: 'find',
          object: 'task',
          args: {
            groupBy: ['status'],
            aggregate: [
              { func: 'sum', field: 'estimate_hours', alias: 'hours' },
              { func: 'min', field: 'due_at' },
            ],
          },
        },
        ADMIN,
        200,
      );
      expect(groups.body.items[0]).to.have.keys('status', 'hours', 'min_due_at');
      await rpc({ op: 'findOne', object: 'project', args: 'prj-apollo' }, ADMIN, 200);
      await rpc(
        {
          op: 'findOne',
          object: 'project',
          args: { filters: [['name', 'startswith', 'Apollo']], fields: ['name'], expand: { account: {} } },
        },
        ADMIN,
        200,
      );
      await rpc({ op: 'count', object: 'task', args: { filters: { status: 'done' } } }, ADMIN, 200);
    });

    it('create (every object, its example), update, delete, action', async () => {
      for (const object of OBJECTS) {
        const created = await rpc({ op: 'create', object, args: await createBody(object) }, ADMIN, 200);
        const data = doc.components.schemas[`${schemaName(object)}Update`].example;
        await rpc({ op: 'update', object, args: { id: created.body.id, data } }, ADMIN, 200);
        await rpc({ op: 'delete', object, args: { id: created.body.id } }, ADMIN, 200);
      }
      await rpc({ op: 'action', object: 'project', args: { action: 'summary', input: {} } }, ADMIN, 200);
    });

    it('createMany, updateMany, deleteMany', async () => {
      const tag = Math.random().toString(36).slice(2);
      await rpc({ op: 'createMany', object: 'account', args: [{ name: `Many ${tag}` }, { name: `Many ${tag}` }] }, ADMIN, 200);
      await rpc({ op: 'updateMany', object: 'account', args: { filters: { name: `Many ${tag}` }, data: { active: false } } }, ADMIN, 200);
      await rpc({ op: 'deleteMany', object: 'account', args: { filters: { name: `Many ${tag}` } } }, ADMIN, 200);
    });

    it('the request examples are accepted as they are', async () => {
      const examples = doc.paths['/api/objectql'].post.requestBody.content['application/json'].examples;
      for (const name of ['find', 'count', 'aggregate', 'create']) await rpc(examples[name].value, ADMIN, 200);
    });

    it('errors: 400, 401, 403, 404', async () => {
      await rpc({ op: 'find', object: 'project', args: { filters: [['nope', '=', 1]] } }, ADMIN, 400);
      await rpc({ op: 'find', object: 'project' }, null, 401);
      await rpc({ op: 'create', object: 'project', args: { name: 'Viewer made' } }, VIEWER, 403);
      await call('rpc', 'POST', '/api/objectql', { op: 'create', object: 'project', args: { budget: 5 } }, ADMIN, 400, false);
      await rpc({ op: 'findOne', object: 'project', args: 'no-such-id' }, ADMIN, 404);
    });
  });

  describe('metadata and files', () => {
    it('metadata: objects, one object, a field, actions, entries of a type', async () => {
      await call('metadataListObjects', 'GET', '/api/metadata/objects', undefined, ADMIN, 200);
      await call('metadataGetObject', 'GET', '/api/metadata/objects/project', undefined, ADMIN, 200);
      await call('metadataGetField', 'GET', '/api/metadata/objects/project/fields/status', undefined, ADMIN, 200);
      await call('metadataListActions', 'GET', '/api/metadata/objects/project/actions', undefined, ADMIN, 200);
      await call('metadataListEntries', 'GET', '/api/metadata/object', undefined, ADMIN, 200);
      await call('metadataGetObject', 'GET', '/api/metadata/objects/nope', undefined, ADMIN, 404);
    });

    it('files: an upload, then a record holding it as its attachment', async () => {
      const form = new FormData();
      form.append('object', 'expense');
      form.append('field', 'receipt');
      form.append('file', new Blob(['%PDF-1.4 test'], { type: 'application/pdf' }), 'receipt.pdf');
      const res = await fetch(`${s.url}/api/files/upload`, { method: 'POST', body: form, headers: identityHeader(ADMIN) });
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body)).to.equal(200);
      expect(api.validateResponse(body, 'filesUpload', 200).errors ?? []).to.deep.equal([]);
      const expense = { ...(await createBody('expense')), receipt: body.data };
      const created = await call('rest_create_expense', 'POST', '/api/data/expense', expense, ADMIN, 201);
      expect(created.body.receipt).to.include({ id: body.data.id });
    });
  });

  after(() => {
    // Every answer above went through the validator: at least these operations and statuses.
    expect([...checked]).to.include.members([
      'rest_list_project 200',
      'rest_create_account 201',
      'rpc 200',
      'rpc 404',
      'rest_get_project 404',
    ]);
  });
});
