/**
 * Metadata types: a file whose type is a near miss of a known one (`invoice.permissions.yml`)
 * stops start-up naming the file and the name meant, instead of loading as a custom type while
 * the object runs without its permissions; a custom type loads only when the config declares it
 * (`metadataTypes`). Through the registry and through a real kernel start.
 */
import { expect } from 'chai';
import * as path from 'node:path';
import { ConfigError, Kernel, MetadataError, resolveConfig } from '../../../kernel';
import { MetadataRegistry } from '../../../kernel/metadata';
import { BOOK, TempApps } from './write-app';

const FIXTURES = path.resolve(__dirname, '../../fixtures');

const INVOICE = 'fields:\n  amount: number\n  owner: text\n';
const PERMISSIONS = 'permissions:\n  - profile: accountant\n    allow_read: true\n';
const RULES = 'rules:\n  - type: range\n    field: amount\n    min: 0\n';
const HOOK = 'export default { beforeCreate: async () => {} };\n';

describe('metadata types', () => {
  const apps = new TempApps();
  after(() => apps.cleanup());

  /** The one problem of a load that must fail: its file (relative to the app folder) and reason. */
  async function problem(files: Record<string, string>, customTypes?: string[]): Promise<{ file: string; reason: string }> {
    const dir = apps.write(files);
    const err = await MetadataRegistry.load([dir], { customTypes }).then(
      () => expect.fail('expected the load to fail'),
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(MetadataError);
    const problems = (err as MetadataError).problems;
    expect(problems, (err as Error).message).to.have.length(1);
    return { file: path.relative(dir, problems[0].file), reason: problems[0].reason };
  }

  describe('near misses of a known type stop the load, naming the file and the name meant', () => {
    const cases: [string, string, RegExp][] = [
      [
        'invoice.permissions.yml',
        PERMISSIONS,
        /'permissions' is not a metadata type: did you mean 'permission' \(invoice\.permission\.yml\)\?/,
      ],
      ['invoice.premission.yml', PERMISSIONS, /did you mean 'permission' \(invoice\.permission\.yml\)/],
      ['invoice.Permission.yaml', PERMISSIONS, /did you mean 'permission' \(invoice\.permission\.yaml\)/],
      ['invoice.perms.yml', PERMISSIONS, /did you mean 'permission'/],
      ['invoice.validations.yml', RULES, /did you mean 'validation' \(invoice\.validation\.yml\)/],
      ['invoice.rules.yml', RULES, /did you mean 'validation'/],
      ['invoice.objects.yml', INVOICE, /did you mean 'object' \(invoice\.object\.yml\)/],
      ['invoice.datas.yml', '[]', /did you mean 'data'/],
      ['invoice.hooks.yml', 'x: 1', /hook files are code, name it invoice\.hook\.ts \(or \.js\)/],
      ['invoice.hooks.ts', HOOK, /'hooks' is not a code file type: did you mean invoice\.hook\.ts\? It would not be loaded/],
      ['invoice.Hook.js', HOOK, /did you mean invoice\.hook\.ts/],
      ['invoice.actions.ts', 'export default {};', /did you mean invoice\.action\.ts/],
      ['invoice.acton.mjs', 'export default {};', /did you mean invoice\.action\.ts/],
      ['invoice.permission.ts', 'export default [];', /permission files are YAML: name it invoice\.permission\.yml/],
      ['invoice.permission.json', '{"permissions": []}', /metadata files are YAML \(JSON is YAML too\): name it invoice\.permission\.yml/],
      ['invoice.validations.json', '{"rules": []}', /name it invoice\.validation\.yml/],
    ];
    for (const [name, content, reason] of cases) {
      it(name, async () => {
        const got = await problem({ 'invoice.object.yml': INVOICE, [`billing/${name}`]: content });
        expect(got.file).to.equal(path.join('billing', name));
        expect(got.reason).to.match(reason);
        // Every YAML near miss also says how a custom type of that name would be declared.
        if (/\.ya?ml$/.test(name)) expect(got.reason).to.include("metadataTypes: ['");
      });
    }
  });

  it('an undeclared custom type stops the load, naming the file and how to declare it', async () => {
    const got = await problem({ 'ops.dashboard.yml': 'label: Operations\n' });
    expect(got).to.deep.equal({
      file: 'ops.dashboard.yml',
      reason:
        "unknown metadata type 'dashboard' (known: object, app, workflow, permission, validation, data, page, view, form, report, menu); " +
        "a custom type must be declared in the config: metadataTypes: ['dashboard']",
    });
  });

  it('a declared custom type loads as entries; a near miss of it is caught too', async () => {
    const dir = apps.write({ 'ops.dashboard.yml': 'label: Operations\n', 'book.object.yml': BOOK });
    const reg = await MetadataRegistry.load([dir], { customTypes: ['dashboard'] });
    expect(reg.entries('dashboard')).to.deep.equal([
      { type: 'dashboard', id: 'ops', content: { label: 'Operations', name: 'ops' }, source: path.join(dir, 'ops.dashboard.yml') },
    ]);
    const got = await problem({ 'ops.dashbaord.yml': 'label: Operations\n' }, ['dashboard']);
    expect(got.reason).to.match(/^'dashbaord' is not a metadata type: did you mean 'dashboard' \(ops\.dashboard\.yml\)\?/);
  });

  it('a declared custom type wins over a near miss (declaring it is deliberate)', async () => {
    // 'import' is two edits from 'report': undeclared it would be taken for a misspelling.
    expect((await problem({ 'q1.import.yml': 'source: csv\n' })).reason).to.match(/did you mean 'report'/);
    const reg = await MetadataRegistry.load([apps.write({ 'q1.import.yml': 'source: csv\n' })], { customTypes: ['import'] });
    expect(reg.entries('import').map((e) => e.id)).to.deep.equal(['q1']);
  });

  it('every spec type loads without a declaration', async () => {
    const types = ['object', 'app', 'workflow', 'permission', 'validation', 'data', 'page', 'view', 'form', 'report', 'menu'];
    const files: Record<string, string> = {};
    for (const t of types)
      files[`book.${t}.yml`] = t === 'object' ? BOOK : t === 'data' ? '[]' : t === 'permission' ? 'permissions: []\n' : '{}';
    files['book.validation.yml'] = 'rules: []\n';
    const reg = await apps.load(files);
    expect(reg.types()).to.deep.equal([...types].sort());
  });

  it('leaves helper modules, JSON files and other files alone', async () => {
    const reg = await apps.load({
      'book.object.yml': BOOK,
      'book.hook.ts': HOOK,
      'lib/format.ts': 'export const f = (s: string) => s.trim();',
      'lib/address.book.ts': 'export const book = 1;',
      'lib/dates.helpers.ts': 'export const x = 1;',
      'lib/types.d.ts': 'export type X = 1;',
      'lib/book.section.ts': 'export const s = 1;',
      'package.json': '{}',
      'tsconfig.build.json': '{}',
      'fixtures.sample.json': '{}',
      'README.md': '# notes',
    });
    expect(reg.types()).to.deep.equal(['object']);
  });

  it('reports every misnamed file of one load at once', async () => {
    const err = await apps.loadError({
      'invoice.object.yml': INVOICE,
      'invoice.permissions.yml': PERMISSIONS,
      'invoice.validations.yml': RULES,
      'invoice.hooks.ts': HOOK,
      'ops.dashboard.yml': '{}',
    });
    expect(err.problems.map((p) => path.basename(p.file))).to.deep.equal([
      'invoice.hooks.ts',
      'invoice.permissions.yml',
      'invoice.validations.yml',
      'ops.dashboard.yml',
    ]);
  });

  it('the test fixtures need no declaration beyond the fixture widget', async () => {
    // The sample application (metadata/, not copied where the kernel is checked alone) starts in every server test.
    for (const folder of ['attachments-app', 'query-app', 'metadata/rpc-expand'])
      await MetadataRegistry.load([path.join(FIXTURES, folder)]);
    await MetadataRegistry.load([path.join(FIXTURES, 'metadata', 'valid')], { customTypes: ['widget'] });
  });

  it('refuses a declared type that is built in, code, or not a name', async () => {
    for (const [type, reason] of [
      ['permission', "'permission' is built in; list only custom types"],
      ['hook', "'hook' files are code (<object>.hook.ts), not a metadata type"],
      ['dash.board', "'dash.board' is not a type name (letters, digits, _ and - only)"],
    ]) {
      expect(() => resolveConfig({ metadataTypes: ['dashboard', type] }), type)
        .to.throw(ConfigError)
        .with.property('message')
        .that.includes(`metadataTypes.1: ${reason}`);
      await MetadataRegistry.load([apps.write({})], { customTypes: [type] }).then(
        () => expect.fail('expected a refusal'),
        (e: Error) => expect(e.message).to.include(reason),
      );
    }
  });

  describe('through a real kernel start', () => {
    const BASE = { port: 0, host: '127.0.0.1', logLevel: 'silent', datasources: {} } as const;

    it('stops start-up on a near miss, naming the file and the name meant, before anything listens', async () => {
      const dir = apps.write({ 'invoice.object.yml': INVOICE, 'invoice.permissions.yml': PERMISSIONS });
      const kernel = new Kernel({ ...BASE, metadata: [dir] });
      const err = await kernel.start().then(
        () => expect.fail('expected start-up to fail'),
        (e: unknown) => e as MetadataError,
      );
      expect(err).to.be.instanceOf(MetadataError);
      expect(err.message).to.equal(
        `${path.join(dir, 'invoice.permissions.yml')}: 'permissions' is not a metadata type: did you mean 'permission' ` +
          "(invoice.permission.yml)? Otherwise a custom type must be declared in the config: metadataTypes: ['permissions']",
      );
      expect(kernel.isStarted).to.equal(false);
    });

    it('starts with a custom type the config declares, and refuses it undeclared', async () => {
      const dir = apps.write({ 'ops.dashboard.yml': 'label: Operations\n' });
      const refused = new Kernel({ ...BASE, metadata: [dir] });
      const err = await refused.start().then(
        () => expect.fail('expected start-up to fail'),
        (e: Error) => e,
      );
      expect(err.message).to.include("ops.dashboard.yml: unknown metadata type 'dashboard'").and.include("metadataTypes: ['dashboard']");
      const kernel = new Kernel({ ...BASE, metadata: [dir], metadataTypes: ['dashboard'] });
      await kernel.start();
      try {
        expect(kernel.resolve('registry').entry('dashboard', 'ops')?.content).to.deep.equal({ label: 'Operations', name: 'ops' });
        expect((await fetch(`${kernel.http.url}/health`)).status).to.equal(200);
      } finally {
        await kernel.stop();
      }
    });
  });
});
