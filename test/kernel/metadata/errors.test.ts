import { expect } from 'chai';
import { MetadataError, MetadataRegistry } from '../../../kernel/metadata';
import { BOOK, TempApps } from './write-app';

/** Each malformed definition stops the load with a MetadataError naming the file, the path inside it and the problem. */
describe('metadata registry: malformed definitions', () => {
  const apps = new TempApps();
  after(() => apps.cleanup());

  const bookWith = (extra: string) => `${BOOK}${extra}`;

  it('unknown field type', async () => {
    const err = await apps.loadError({ 'book.object.yml': 'fields:\n  price:\n    type: moneyy\n' });
    expect(err.file).to.match(/book\.object\.yml$/);
    expect(err.path).to.equal('fields.price.type');
    expect(err.reason).to.match(/^unknown field type "moneyy"; expected one of text, /);
    expect(err.line).to.equal(3);
    expect(err.message).to.include('book.object.yml: fields.price.type: unknown field type "moneyy"');
  });

  it('unknown field type in the short form', async () => {
    const err = await apps.loadError({ 'book.object.yml': 'fields:\n  price: money\n' });
    expect(err.message).to.include('book.object.yml: fields.price.type: unknown field type "money"');
  });

  it('select without options', async () => {
    const err = await apps.loadError({ 'book.object.yml': 'fields:\n  status:\n    type: select\n' });
    expect(err.message).to.include('book.object.yml: fields.status.options: a select field needs options');
  });

  it('reference_to naming an object that does not exist', async () => {
    const err = await apps.loadError({ 'book.object.yml': 'fields:\n  author:\n    type: lookup\n    reference_to: writer\n' });
    expect(err.message).to.include("book.object.yml: fields.author.reference_to: unknown object 'writer'");
    expect(err.line).to.equal(4);
  });

  it('lookup without reference_to', async () => {
    const err = await apps.loadError({ 'book.object.yml': 'fields:\n  author: lookup\n' });
    expect(err.message).to.include('book.object.yml: fields.author.reference_to: a lookup field needs reference_to');
  });

  it('unknown key, at any depth', async () => {
    const err = await apps.loadError({
      'book.object.yml':
        'colour: red\nfields:\n  price:\n    type: number\n    maxx: 3\nactions:\n  go:\n    params:\n      n:\n        type: number\n        lable: N\n',
    });
    expect(err.problems.map((p) => `${p.path}: ${p.reason}`)).to.have.members([
      'colour: unknown key',
      'fields.price.maxx: unknown key',
      'actions.go.params.n.lable: unknown key',
    ]);
    expect(err.message).to.include('book.object.yml: fields.price.maxx: unknown key (line 5)');
  });

  it('wrong value types name the path and the expected type', async () => {
    const err = await apps.loadError({ 'book.object.yml': 'fields:\n  price:\n    type: number\n    required: yes please\n' });
    expect(err.message).to.include('book.object.yml: fields.price.required: expected true or false, got the string "yes please"');
  });

  it('a declared field named like a system field', async () => {
    const err = await apps.loadError({ 'book.object.yml': 'fields:\n  created_at: datetime\n' });
    expect(err.message).to.include("book.object.yml: fields.created_at: 'created_at' is a system field");
  });

  it('invalid field and object names', async () => {
    const err = await apps.loadError({ 'my-book.object.yml': 'fields:\n  2nd: text\n' });
    expect(err.message).to.include("my-book.object.yml: invalid object name 'my-book'");
    expect(err.message).to.include('my-book.object.yml: fields.2nd: invalid field name');
  });

  it('an index naming a missing field', async () => {
    const err = await apps.loadError({ 'book.object.yml': bookWith('indexes:\n  - fields: [title, isbn]\n') });
    expect(err.message).to.include("book.object.yml: indexes[0].fields[1]: unknown field 'isbn' of object 'book'");
  });

  it('a select default that is not an option', async () => {
    const err = await apps.loadError({ 'book.object.yml': 'fields:\n  s:\n    type: select\n    options: [a, b]\n    defaultValue: c\n' });
    expect(err.message).to.include('book.object.yml: fields.s.defaultValue: "c" is not one of the options');
  });

  it('bad regular expression, in the object file and in a validation file', async () => {
    const err = await apps.loadError({
      'book.object.yml': bookWith("validation:\n  rules:\n    - type: pattern\n      field: title\n      pattern: '([a-z'\n"),
      'book.validation.yml': "rules:\n  - type: pattern\n    field: title\n    pattern: '*oops'\n",
    });
    expect(err.message).to.match(/book\.object\.yml: validation\.rules\[0\]\.pattern: invalid regular expression: /);
    expect(err.message).to.match(/book\.validation\.yml: rules\[0\]\.pattern: invalid regular expression: /);
    expect(err.problems).to.have.length(2);
  });

  it('a rule naming a missing field', async () => {
    const err = await apps.loadError({
      'book.object.yml': BOOK,
      'book.validation.yml': [
        'rules:',
        '  - type: range',
        '    field: pages',
        '    min: 1',
        '  - type: unique',
        '    fields: [title, isbn]',
        '  - type: conditional',
        '    when: [[state, "=", done]]',
        '    required: [title, summary]',
        '  - type: cross_field',
        '    field: price',
        '    operator: ">"',
        '    compare_to: cost',
      ].join('\n'),
    });
    const lines = err.problems.map((p) => `${p.path}: ${p.reason}`);
    expect(lines).to.have.members([
      "rules[0].field: unknown field 'pages' of object 'book'",
      "rules[1].fields[1]: unknown field 'isbn' of object 'book'",
      "rules[2].when: unknown field 'state' of object 'book'",
      "rules[2].required[1]: unknown field 'summary' of object 'book'",
      "rules[3].compare_to: unknown field 'cost' of object 'book'",
    ]);
    for (const p of err.problems) expect(p.file).to.match(/book\.validation\.yml$/);
  });

  it('malformed rules: unknown type, bad operator, value and compare_to together, bad when, unknown state', async () => {
    const err = await apps.loadError({
      'book.object.yml': BOOK,
      'book.validation.yml': [
        'rules:',
        '  - type: between',
        '    field: price',
        '  - type: cross_field',
        '    field: price',
        '    operator: "=>"',
        '    value: 1',
        '  - type: cross_field',
        '    field: price',
        '    operator: ">"',
        '    value: 1',
        '    compare_to: price',
        '  - type: conditional',
        '    when: [[status, "~", draft]]',
        '    required: [title]',
        '  - type: state_machine',
        '    field: status',
        '    transitions:',
        '      draft: [archived]',
        '  - type: range',
        '    field: price',
      ].join('\n'),
    });
    const lines = err.problems.map((p) => `${p.path}: ${p.reason}`);
    expect(lines[0]).to.equal(
      'rules[0].type: unknown rule type "between"; expected one of range, pattern, cross_field, unique, state_machine, conditional',
    );
    expect(lines[1]).to.match(/^rules\[1\]\.operator: must be one of =, !=, >, >=, <, <=/);
    expect(lines[2]).to.equal('rules[2]: a cross_field rule needs exactly one of value or compare_to');
    expect(lines[3]).to.match(/^rules\[3\]\.when: Unknown filter operator "~"/);
    expect(lines[4]).to.equal("rules[4].transitions.draft[0]: 'archived' is not an option of field 'status'");
    expect(lines[5]).to.equal('rules[5]: a range rule needs min, max or both');
    expect(lines).to.have.length(6);
  });

  it('duplicate rule names across the object file and the validation file', async () => {
    const err = await apps.loadError({
      'book.object.yml': bookWith('validation:\n  rules:\n    - name: r1\n      type: range\n      field: price\n      min: 0\n'),
      'book.validation.yml': 'rules:\n  - name: r1\n    type: range\n    field: price\n    max: 9\n',
    });
    expect(err.message).to.match(/book\.validation\.yml: rules\[0\]\.name: duplicate rule name 'r1' \(also in .*book\.object\.yml\)/);
  });

  it('permission, validation, data, hook and action files for an object that does not exist', async () => {
    const err = await apps.loadError({
      'book.object.yml': BOOK,
      'ghost.permission.yml': 'permissions: []\n',
      'ghost.validation.yml': 'rules: []\n',
      'ghost.data.yml': '[]\n',
      'ghost.hook.js': 'module.exports = {};\n',
      'ghost.action.js': 'module.exports = {};\n',
    });
    expect(err.problems).to.have.length(5);
    for (const type of ['permission', 'validation', 'data']) {
      expect(err.message).to.include(`ghost.${type}.yml: there is no object 'ghost' for this ${type} file (expected ghost.object.yml)`);
    }
    expect(err.message).to.include("ghost.hook.js: there is no object 'ghost' for this hook file");
    expect(err.message).to.include("ghost.action.js: there is no object 'ghost' for this action file");
  });

  it('malformed permissions: unknown field, bad record filter, non-boolean', async () => {
    const err = await apps.loadError({
      'book.object.yml': BOOK,
      'book.permission.yml': [
        'permissions:',
        '  - profile: member',
        '    allow_read: 1',
        '    record_filters: [[owner, "=", $current_user]]',
        '    fields:',
        '      secret: {allow_read: false}',
        '  - profile: guest',
        '    record_filters: [[title, "=", x], "and"]',
      ].join('\n'),
    });
    const lines = err.problems.map((p) => `${p.path}: ${p.reason}`);
    expect(lines).to.deep.equal(['permissions[0].allow_read: expected true or false, got number 1']);
    const err2 = await apps.loadError({
      'book.object.yml': BOOK,
      'book.permission.yml': [
        'permissions:',
        '  - profile: member',
        '    record_filters: [[owner, "=", $current_user]]',
        '    fields:',
        '      secret: {allow_read: false}',
        '  - profile: guest',
        '    record_filters: [[title, "=", x], "and"]',
      ].join('\n'),
    });
    const lines2 = err2.problems.map((p) => `${p.path}: ${p.reason}`);
    expect(lines2[0]).to.equal("permissions[0].record_filters: unknown field 'owner' of object 'book'");
    expect(lines2[1]).to.equal("permissions[0].fields.secret: unknown field 'secret' of object 'book'");
    expect(lines2[2]).to.match(/^permissions\[1\]\.record_filters: Filter at filters ends with a joiner/);
  });

  it('data files: records must be maps of known fields with distinct ids', async () => {
    const err = await apps.loadError({
      'book.object.yml': BOOK,
      'book.data.yml': '- id: b1\n  title: A\n- id: b1\n  titel: B\n- just a string\n',
    });
    const lines = err.problems.map((p) => `${p.path}: ${p.reason}`);
    expect(lines).to.deep.equal(['[2]: expected a map, got the string "just a string"']);
    const err2 = await apps.loadError({
      'book.object.yml': BOOK,
      'book.data.yml': 'records:\n  - id: b1\n    title: A\n  - id: b1\n    titel: B\n',
    });
    expect(err2.problems.map((p) => `${p.path}: ${p.reason}`)).to.deep.equal([
      "records[1].titel: unknown field 'titel' of object 'book'",
      'records[1].id: duplicate id "b1" (also record [0])',
    ]);
  });

  it('the same identifier and type in two files names both files', async () => {
    const a = apps.write({ 'book.object.yml': BOOK });
    const b = apps.write({ 'sub/book.object.yaml': BOOK });
    const err = await MetadataRegistry.load([a, b]).then(
      () => expect.fail('should fail'),
      (e: unknown) => e as MetadataError,
    );
    expect(err).to.be.instanceOf(MetadataError);
    expect(err.file).to.equal(`${b}/sub/book.object.yaml`);
    expect(err.reason).to.equal(`duplicate object 'book': also defined in ${a}/book.object.yml`);
  });

  it("a name inside the file that differs from the file's identifier", async () => {
    const err = await apps.loadError({ 'book.object.yml': `name: books\n${BOOK}`, 'main.app.yml': 'name: other\n' });
    expect(err.message).to.include('book.object.yml: name: must equal the identifier \'book\' from the file name (got the string "books")');
    expect(err.message).to.include("main.app.yml: name: must equal the identifier 'main'");
  });

  it('a .yml file without a type part', async () => {
    const err = await apps.loadError({ 'book.yml': BOOK });
    expect(err.path).to.equal('');
    expect(err.message).to.match(/book\.yml: file name has no type part: name it <identifier>\.<type>\.yml/);
  });

  it('a hook file with an unknown event or a non-function handler', async () => {
    const err = await apps.loadError({
      'book.object.yml': BOOK,
      'book.hook.ts':
        'export default {\n  beforeCreat(ctx: unknown) { return ctx; },\n  afterCreate: 42,\n  beforeDelete: { handler: "nope" },\n};\n',
    });
    const lines = err.problems.map((p) => `${p.path}: ${p.reason}`);
    expect(lines[0]).to.match(/^beforeCreat: unknown hook event; expected one of beforeFind, afterFind, /);
    expect(lines[1]).to.equal('afterCreate: must be a function or {handler, description}, got number 42');
    expect(lines[2]).to.equal('beforeDelete.handler: must be a function');
    expect(err.message).to.include('book.hook.ts: beforeCreat: unknown hook event');
  });

  it('a code file that does not compile or throws when loaded', async () => {
    const err = await apps.loadError({
      'book.object.yml': BOOK,
      'book.hook.ts': 'export default { beforeCreate( {\n',
      'book.action.js': 'throw new Error("boom at import");\n',
    });
    expect(err.message).to.match(/book\.action\.js: cannot load: boom at import/);
    expect(err.message).to.match(/book\.hook\.ts: cannot load: /);
    expect(err.problems).to.have.length(2);
  });

  it('an action without a handler', async () => {
    const err = await apps.loadError({ 'book.object.yml': bookWith('actions:\n  approve:\n    type: record\n') });
    expect(err.message).to.include(
      "book.object.yml: actions.approve: action 'approve' of object 'book' has no handler; add book.action.ts exporting 'approve'",
    );
    const err2 = await apps.loadError({
      'book.object.yml': bookWith('actions:\n  approve:\n    type: record\n  reject: {}\n'),
      'book.action.js': 'exports.approve = { label: "Approve" };\n',
    });
    expect(err2.problems.map((p) => `${p.path}: ${p.reason}`)).to.deep.equal([
      "approve.handler: action 'approve' of object 'book' has no handler",
      "actions.reject: action 'reject' of object 'book' has no handler; export 'reject' from book.action.js",
    ]);
  });

  it('an action whose type differs between the declaration and the code', async () => {
    const err = await apps.loadError({
      'book.object.yml': bookWith('actions:\n  approve:\n    type: record\n'),
      'book.action.ts': "export const approve = { type: 'global', handler: () => 1 };\nexport const bad = 'x';\n",
    });
    const lines = err.problems.map((p) => `${p.path}: ${p.reason}`);
    expect(lines).to.deep.equal([
      'bad: must be a function (the handler) or {handler, type, label, description, params}, got the string "x"',
    ]);
    const err2 = await apps.loadError({
      'book.object.yml': bookWith('actions:\n  approve:\n    type: record\n'),
      'book.action.ts': "export const approve = { type: 'global', handler: () => 1 };\n",
    });
    expect(err2.message).to.include("book.action.ts: approve.type: 'global' differs from the declaration in the object file ('record')");
  });

  it('YAML syntax error, with its line', async () => {
    const err = await apps.loadError({ 'book.object.yml': 'fields:\n  title:\n    type: text\n  price: [number\n' });
    expect(err.path).to.equal('');
    expect(err.line).to.be.a('number');
    expect(err.reason).to.match(/^YAML syntax error at line \d+, column \d+: /);
    expect(err.message).to.match(/book\.object\.yml: YAML syntax error at line \d+/);
    const dup = await apps.loadError({ 'book.object.yml': 'label: A\nlabel: B\n' });
    expect(dup.reason).to.match(/^YAML syntax error at line 2, column 1: .*unique/i);
  });

  it('an object file with a YAML syntax error is the one problem, not its other files', async () => {
    const err = await apps.loadError({
      'book.object.yml': 'fields:\n  title: {type: text}\n price: {type: number}\n',
      'book.permission.yml': 'permissions: []\n',
      'book.hook.js': 'module.exports = {};\n',
    });
    expect(err.problems).to.have.length(1);
    expect(err.message).to.match(/book\.object\.yml: YAML syntax error at line 3\b/);
  });

  it('a metadata folder that does not exist', async () => {
    const err = await MetadataRegistry.load(['/nonexistent/objectql-metadata']).then(
      () => expect.fail('should fail'),
      (e: unknown) => e as MetadataError,
    );
    expect(err.message).to.equal('/nonexistent/objectql-metadata: metadata folder does not exist');
  });

  it('collects every problem of one load into one error, one line each', async () => {
    const err = await apps.loadError({
      'a.object.yml': 'fields:\n  x: nope\n',
      'b.object.yml': 'fields:\n  s: select\n',
      'c.yml': 'x: 1\n',
    });
    expect(err.problems).to.have.length(3);
    const lines = err.message.split('\n');
    expect(lines).to.have.length(3);
    expect(lines[0]).to.match(/a\.object\.yml: fields\.x\.type: unknown field type "nope"/);
    expect(lines[1]).to.match(/b\.object\.yml: fields\.s\.options: a select field needs options/);
    expect(lines[2]).to.match(/c\.yml: file name has no type part/);
    expect(err.file).to.match(/a\.object\.yml$/);
  });
});
