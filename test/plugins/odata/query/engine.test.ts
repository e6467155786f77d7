/**
 * Parsed OData queries run through the data engine on the sample application, on the memory
 * driver and on SQLite: the AST the parser makes is what the engine checks and the drivers push
 * down (length(), $search, expand filters), and a field the caller may not read is refused exactly
 * like one that does not exist, by the parser (given the caller's view) and by the engine.
 */
import { expect } from 'chai';
import {
  ObjectQLError,
  type DataRecord,
  type FindOptions,
  type ObjectDefinition,
  type ObjectQLConfig,
  type User,
} from '../../../../kernel';
import { parseODataQuery, type ODataQueryTarget } from '../../../../plugins/odata/query';
import { startServer, USERS, type TestServer } from '../../../helpers/server';

const SETTINGS = { maxExpandDepth: 3, enableSearch: true, maxTop: 1000 };

const BACKENDS: Array<[string, ObjectQLConfig['datasources']]> = [
  ['memory', undefined],
  ['SQLite', { default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: ':memory:' } } }],
];

for (const [label, datasources] of BACKENDS) {
  describe(`OData query through the engine (${label})`, () => {
    let server: TestServer;
    const { admin, alice } = USERS;

    before(async () => {
      server = await startServer(datasources ? { datasources } : {});
    });
    after(async () => {
      await server?.stop();
    });

    /** The object as `user` sees it: its readable fields only (what the OData service hands the parser). */
    function view(name: string, user: User): ObjectDefinition {
      const def = server.kernel.registry.object(name)!;
      const readable = server.kernel.engine.repo(name, { user }).visibility().readable;
      return { ...def, fields: Object.fromEntries(Object.entries(def.fields).filter(([f]) => readable.has(f))) };
    }
    function target(name: string, user: User): ODataQueryTarget {
      return { object: view(name, user), resolve: (other) => (server.kernel.engine.has(other) ? view(other, user) : undefined) };
    }
    function parsed(object: string, query: string, user: User = admin): FindOptions {
      return parseODataQuery(new URLSearchParams(query), target(object, user), SETTINGS).find;
    }
    async function items(object: string, query: string, user: User = admin): Promise<DataRecord[]> {
      return (await server.kernel.engine.repo(object, { user }).find(parsed(object, query, user))).items;
    }
    async function ids(object: string, query: string, user: User = admin): Promise<string[]> {
      return (await items(object, query, user)).map((r) => String(r.id)).sort();
    }
    async function failure(fn: () => unknown): Promise<ObjectQLError> {
      try {
        await fn();
      } catch (err) {
        expect(err).to.be.instanceOf(ObjectQLError);
        return err as ObjectQLError;
      }
      throw new Error('expected an error');
    }

    it('runs comparisons, in, null tests, field references and precedence', async () => {
      expect(await ids('project', "$filter=status eq 'active' or status eq 'done' and budget lt 10000")).to.deep.equal([
        'prj-apollo',
        'prj-mercury',
      ]);
      expect(await ids('project', "$filter=(status eq 'active' or status eq 'done') and budget lt 10000")).to.deep.equal(['prj-mercury']);
      expect(await ids('project', "$filter=status in ('planning', 'done')")).to.deep.equal(['prj-gemini', 'prj-mercury']);
      expect(await ids('project', '$filter=end_date eq null')).to.deep.equal(['prj-gemini']);
      expect(await ids('project', '$filter=null ne end_date and start_date ge 2025-01-01')).to.deep.equal(['prj-apollo']);
      expect(await ids('project', '$filter=actual_cost gt budget')).to.deep.equal([]);
      expect(await ids('project', '$filter=budget gt actual_cost and not (budget ge 100000)')).to.deep.equal(['prj-gemini', 'prj-mercury']);
      expect(await ids('account', '$filter=active')).to.deep.equal(['acc-acme', 'acc-globex']);
      expect(await ids('account', '$filter=not active')).to.deep.equal(['acc-initech']);
    });

    it('runs the text functions case-insensitively, and tolower() exactly', async () => {
      expect(await ids('project', "$filter=contains(name,'WEBSITE') or startswith(name,'gem')")).to.deep.equal([
        'prj-apollo',
        'prj-gemini',
      ]);
      expect(await ids('project', "$filter=endswith(name,'migration')")).to.deep.equal(['prj-mercury']);
      expect(await ids('project', "$filter=tolower(name) eq 'mercury ledger migration'")).to.deep.equal(['prj-mercury']);
      expect(await ids('project', "$filter=tolower(name) eq 'Mercury Ledger Migration'")).to.deep.equal([]);
      expect(await ids('project', "$filter=toupper(owner) ne 'ALICE'")).to.deep.equal(['prj-gemini']);
    });

    it('runs length() pushed down, and the engine checks it', async () => {
      // 'Apollo Website Relaunch' and 'Gemini Plant Monitoring' have 23 characters, 'Mercury Ledger Migration' 24.
      expect(await ids('project', '$filter=length(name) eq 23')).to.deep.equal(['prj-apollo', 'prj-gemini']);
      expect(await ids('project', '$filter=length(name) gt 23')).to.deep.equal(['prj-mercury']);
      expect(await ids('project', '$filter=23 lt length(name) or length(owner) eq 3')).to.deep.equal(['prj-gemini', 'prj-mercury']);

      const repo = server.kernel.engine.repo('project', { user: admin });
      const len = (field: string, op: string, value: unknown) => ({ filter: { field, op, value, fn: 'length' } }) as FindOptions;
      expect((await repo.find(len('name', 'eq', '24'))).items.map((r) => r.id)).to.deep.equal(['prj-mercury']);
      expect((await failure(() => repo.find(len('budget', 'gt', 1)))).message).to.equal(
        "Filter on 'budget': length() applies to single-valued text fields, not currency",
      );
      expect((await failure(() => repo.find(len('tags', 'gt', 1)))).message).to.equal(
        "Filter on 'tags': length() applies to single-valued text fields, not select (multiple)",
      );
      expect((await failure(() => repo.find(len('name', 'in', [1])))).message).to.equal(
        "Filter on 'name': length() can be compared with eq, ne, gt, ge, lt, le only, not 'in'",
      );
      expect((await failure(() => repo.find(len('name', 'gt', 'x')))).message).to.equal(
        `Filter on 'name': length() must be compared with a number, got "x"`,
      );
      expect(
        (await failure(() => repo.find({ filter: { field: 'name', op: 'eq', value: 1, fn: 'upper' } } as unknown as FindOptions))).message,
      ).to.equal(`Filter on 'name': unknown function "upper"`);
      expect((await failure(() => repo.find(len('nosuch', 'gt', 1)))).message).to.equal(
        "Filter: unknown field 'nosuch' on object 'project'",
      );
    });

    it('runs $search over the text fields, case-insensitively, and-ed with $filter', async () => {
      expect(await ids('project', '$search=APOLLO')).to.deep.equal(['prj-apollo']);
      expect(await ids('project', '$search=alice')).to.deep.equal(['prj-apollo', 'prj-mercury']);
      expect(await ids('project', '$search=alice NOT ledger')).to.deep.equal(['prj-apollo']);
      expect(await ids('project', '$search=apollo OR gemini')).to.deep.equal(['prj-apollo', 'prj-gemini']);
      expect(await ids('project', '$search="plant monitoring"')).to.deep.equal(['prj-gemini']);
      expect(await ids('project', '$search="monitoring plant"')).to.deep.equal([]);
      expect(await ids('project', '$search=alice&$filter=budget gt 10000')).to.deep.equal(['prj-apollo']);
      expect(await ids('account', '$search=example.com technology')).to.deep.equal(['acc-acme']);
    });

    it('selects, orders and pages', async () => {
      const page = await items('project', '$select=name,budget&$orderby=budget desc&$top=2&$skip=1');
      expect(page).to.deep.equal([
        { id: 'prj-gemini', name: 'Gemini Plant Monitoring', budget: 45000 },
        { id: 'prj-mercury', name: 'Mercury Ledger Migration', budget: 8000 },
      ]);
      expect((await items('project', '$orderby=owner desc,name asc&$select=owner')).map((r) => r.id)).to.deep.equal([
        'prj-gemini',
        'prj-apollo',
        'prj-mercury',
      ]);
    });

    it('expands with the nested options, the expand filter applied by the engine', async () => {
      const rows = await items(
        'project',
        "$select=name&$orderby=name&$expand=account($select=name,industry;$filter=active eq true and industry ne 'finance')",
      );
      expect(rows.map((r) => [r.id, r.account])).to.deep.equal([
        ['prj-apollo', { id: 'acc-acme', name: 'Acme Corporation', industry: 'technology' }],
        ['prj-gemini', { id: 'acc-globex', name: 'Globex Industries', industry: 'manufacturing' }],
        // Initech is inactive: the related record does not match and reads as null.
        ['prj-mercury', null],
      ]);
      const nested = await items(
        'task',
        "$filter=project eq 'prj-apollo'&$top=1&$expand=project($select=name;$expand=account($select=name))",
      );
      expect(nested[0].project).to.deep.equal({
        id: 'prj-apollo',
        name: 'Apollo Website Relaunch',
        account: { id: 'acc-acme', name: 'Acme Corporation' },
      });
    });

    it('ands an expand filter AST with the spec filters of the same expand', async () => {
      const repo = server.kernel.engine.repo('project', { user: admin });
      const find = (expand: FindOptions['expand']) => repo.find({ fields: ['name'], sort: 'name', expand });
      const both = await find({
        account: { fields: ['name'], filters: [['active', '=', true]], filter: { field: 'industry', op: 'eq', value: 'technology' } },
      });
      expect(both.items.map((r) => r.account && (r.account as DataRecord).id)).to.deep.equal(['acc-acme', null, null]);
      expect((await failure(() => find({ account: { filter: { field: 'nosuch', op: 'eq', value: 1 } } }))).message).to.equal(
        "expand.account: Filter: unknown field 'nosuch' on object 'account'",
      );
    });

    it('refuses a field the caller may not read exactly as one that does not exist, in the parser and in the engine', async () => {
      // alice (member) may not read project.actual_cost.
      for (const query of [
        '$filter=FIELD gt 0',
        '$select=name,FIELD',
        '$orderby=FIELD desc',
        '$filter=budget gt FIELD',
        '$search=x&$filter=FIELD eq null',
        '$filter=contains(name, FIELD)',
      ]) {
        const hidden = await failure(() => parsed('project', query.replace('FIELD', 'actual_cost'), alice));
        const unknown = await failure(() => parsed('project', query.replace('FIELD', 'nosuch_cost'), alice));
        expect(hidden.message.replace('actual_cost', 'FIELD'), query).to.equal(unknown.message.replace('nosuch_cost', 'FIELD'));
        expect(hidden.details).to.deep.equal([{ code: 'INVALID_REQUEST', message: hidden.message, target: 'actual_cost' }]);
        // An admin may.
        expect(() => parsed('project', query.replace('FIELD', 'actual_cost'), admin)).not.to.throw();
      }
      // Behind the parser the engine is a second guard that says the same for both.
      const repo = server.kernel.engine.repo('project', { user: alice });
      const run = (field: string) => failure(() => repo.find({ filter: { field, op: 'gt', value: 0 } }));
      const [hidden, unknown] = [await run('actual_cost'), await run('nosuch_cost')];
      expect(hidden.message.replace('actual_cost', 'FIELD')).to.equal(unknown.message.replace('nosuch_cost', 'FIELD'));
      expect(hidden.message).to.equal("Filter: unknown field 'actual_cost' on object 'project'");
    });

    it("applies the caller's record scope on top of the query", async () => {
      expect(await ids('project', '$filter=budget gt 0', alice)).to.deep.equal(['prj-apollo', 'prj-mercury']);
      expect(await ids('project', '$search=gemini', alice)).to.deep.equal([]);
    });
  });
}
