/**
 * `objectql generate types` and the typed client: the CLI (a real child process, the built dist/)
 * writes the types of the sample application's objects; TypeScript compiles a sample against them
 * and refuses wrong field names, unknown objects, values outside a select's options and a create
 * without a required field; the generated createClient then talks to a real server over JSON-RPC.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { ObjectQLClientError } from '../../client';
import { startServer, type TestServer } from '../helpers/server';
import { diagnosticText, typeChecker } from '../helpers/type-check';

const ROOT = resolve(__dirname, '../..');
const ADMIN_KEY = 'typed-client-admin-key-01';

/** Strict, beside the generated module; one compiler for every snippet (the module and @types/node read once). */
const checkTypes = typeChecker({
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10,
  types: ['node'],
  typeRoots: [join(ROOT, 'node_modules/@types')],
  skipLibCheck: true,
});

/** Type errors of one file compiled strictly beside the generated module. */
function typeErrors(dir: string, source: string): string[] {
  const file = join(dir, `snippet-${Math.random().toString(36).slice(2)}.ts`);
  writeFileSync(file, source);
  return checkTypes([file]).map(diagnosticText);
}

describe('typed client: objectql generate types', function () {
  this.timeout(60_000);
  let dir: string;
  let server: TestServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'objectql-typed-'));
    const client = relative(dir, join(ROOT, 'client/index')).replace(/\\/g, '/');
    const generated = spawnSync(
      process.execPath,
      [
        join(ROOT, 'bin/objectql.js'),
        'generate',
        'types',
        '--config',
        'objectql.config.ts',
        '--out',
        join(dir, 'objectql-types.ts'),
        '--client',
        client,
      ],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(generated.status, generated.stderr).to.equal(0);
    expect(generated.stderr).to.match(/wrote the types of 6 objects/);
    server = await startServer({
      plugins: { rpc: true, auth: { apiKeys: [{ key: ADMIN_KEY, user: { id: 'root', roles: ['admin'] } }] } },
      security: { adminRoles: ['admin'] },
    });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('compiles a sample that uses records, filters, sorts, creates and updates as the metadata declares them', () => {
    const errors = typeErrors(
      dir,
      `import { createClient, type Project, type ProjectCreate, type Schema } from './objectql-types';
const client = createClient({ url: 'http://localhost:3000', apiKey: 'k' });
export async function sample(): Promise<void> {
  const page = await client.project.find({
    filters: [['status', 'in', ['active', 'planning']], 'and', ['budget', '>', 1000]],
    fields: ['name', 'budget'],
    sort: '-budget',
    top: 5,
  });
  const names: Array<string | undefined> = page.items.map((p) => p.name);
  const total: number = page.meta.total;
  const byMap = await client.project.count({ filters: { status: 'active', budget: ['>', 10] } });
  const input: ProjectCreate = { name: 'Typed', status: 'active', priority: 'high' };
  const created: Project = await client.project.create(input);
  await client.project.update(created.id, { budget: 12, status: 'on_hold' });
  const status: Schema['project']['record']['status'] = created.status;
  void [names, total, byMap, status];
}
`,
    );
    expect(errors).to.deep.equal([]);
  });

  const refusals: Array<[string, string, RegExp]> = [
    ['a field the object does not have in a filter', `client.project.find({ filters: [['nmae', '=', 'x']] });`, /nmae/],
    ['a field the object does not have in fields', `client.project.find({ fields: ['nmae'] });`, /nmae/],
    ['a sort key that is no field', `client.project.find({ sort: '-nmae' });`, /nmae/],
    ['a create without a required field', `client.account.create({ industry: 'finance' });`, /'name' is missing/],
    ['a value outside a select', `client.project.create({ name: 'x', status: 'unknown' });`, /unknown/],
    ['a value of the wrong type', `client.account.update('a', { annual_revenue: 'lots' });`, /string.*number|number/],
    ['an object that does not exist', `client.projcet.find();`, /projcet/],
  ];
  for (const [what, line, message] of refusals) {
    it(`does not compile ${what}`, () => {
      const errors = typeErrors(
        dir,
        `import { createClient } from './objectql-types';\nconst client = createClient({ url: 'http://x' });\n${line}\n`,
      );
      expect(errors, line).to.have.length.above(0);
      expect(errors.join('\n')).to.match(message);
    });
  }

  it('talks to a real server over JSON-RPC, and error answers throw the spec error with its details', async () => {
    // The generated module, compiled on the fly like the application that imports it.
    const load = createRequire(__filename);
    const { createClient } = load(join(dir, 'objectql-types.ts')) as { createClient: (o: { url: string; apiKey: string }) => any };
    const client = createClient({ url: server.url, apiKey: ADMIN_KEY });
    const account = await client.account.create({ name: 'Typed Client Ltd', industry: 'finance' });
    expect(account).to.include({ name: 'Typed Client Ltd', industry: 'finance' });
    const page = await client.account.find({ filters: [['name', '=', 'Typed Client Ltd']], fields: ['name'] });
    expect(page.items.map((a: { id: string }) => a.id)).to.deep.equal([account.id]);
    expect(page.meta.total).to.equal(1);
    expect(await client.account.count({ filters: { industry: 'finance' } })).to.be.at.least(1);
    const changed = await client.account.update(account.id, { annual_revenue: 10 });
    expect(changed).to.include({ id: account.id, annual_revenue: 10 });
    expect((await client.account.findOne(account.id)).annual_revenue).to.equal(10);
    expect(await client.account.findOne('no-such-account')).to.equal(null);
    const failure = await client.account.create({ industry: 'finance' }).catch((err: unknown) => err);
    expect(failure).to.be.instanceOf(ObjectQLClientError);
    expect(failure).to.include({ code: 'VALIDATION_ERROR', status: 400 });
    expect(JSON.stringify(failure.details)).to.match(/name/);
    const anonymous = createClient({ url: server.url, apiKey: 'wrong-key-0000000000' });
    const refused = await anonymous.account.count().catch((err: unknown) => err);
    expect(refused).to.include({ code: 'UNAUTHORIZED', status: 401 });
    expect(await client.account.delete(account.id)).to.include({ id: account.id, deleted: true });
  });

  it('says what is wrong, without a stack, for an unknown option or metadata that does not load', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [join(ROOT, 'bin/objectql.js'), 'generate', 'types', ...args], { cwd: dir, encoding: 'utf8' });
    const unknown = run('--outt', 'x.ts');
    expect(unknown.status).to.equal(2);
    expect(unknown.stderr).to.match(/Unknown option '--outt'/);
    writeFileSync(join(dir, 'broken.object.yml'), 'fields:\n  name: {type: texty}\n');
    writeFileSync(join(dir, 'broken.config.json'), JSON.stringify({ metadata: ['.'] }));
    const broken = run('--config', 'broken.config.json', '--out', '-');
    expect(broken.status).to.equal(1);
    expect(broken.stderr).to.match(/broken\.object\.yml/);
    expect(broken.stderr).not.to.match(/\n\s+at /);
  });

  it('names the command when asked for something it cannot generate', () => {
    const result = spawnSync(process.execPath, [join(ROOT, 'bin/objectql.js'), 'generate', 'docs'], { cwd: ROOT, encoding: 'utf8' });
    expect(result.status).to.equal(2);
    expect(result.stderr).to.match(/say what to generate \('types'\)/);
  });
});
