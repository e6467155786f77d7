import * as path from 'node:path';
import { expect } from 'chai';
import type { HookContext } from '../../../kernel/engine/types';
import { MetadataRegistry, SYSTEM_FIELDS } from '../../../kernel/metadata';
import type { ActionContext } from '../../../kernel/metadata/types';
import { TempApps } from './write-app';

const VALID = path.resolve(__dirname, '../../fixtures/metadata/valid');

describe('metadata registry: a valid application', () => {
  let registry: MetadataRegistry;
  const apps = new TempApps();

  before(async () => {
    registry = await MetadataRegistry.load([VALID], { customTypes: ['widget'] });
  });
  after(() => apps.cleanup());

  it('loads every object, nested folders included, sorted by name', () => {
    expect(registry.objects().map((o) => o.name)).to.deep.equal(['author', 'book', 'chapter']);
    expect(registry.object('chapter')!.source).to.equal(path.join(VALID, 'objects/nested/deep/chapter.object.yml'));
    expect(registry.object('nope')).to.equal(undefined);
  });

  it('puts id first and the audit fields last, all marked system', () => {
    const names = Object.keys(registry.object('author')!.fields);
    expect(names).to.deep.equal(['id', 'name', 'birth_date', 'bio', 'created_at', 'created_by', 'updated_at', 'updated_by']);
    const fields = registry.object('author')!.fields;
    for (const name of SYSTEM_FIELDS) expect(fields[name].system, name).to.equal(true);
    expect(fields.id).to.include({ type: 'text', label: 'ID' });
    expect(fields.created_at).to.include({ type: 'datetime', label: 'Created At' });
    expect(fields.created_by.type).to.equal('text');
    expect(fields.name.system).to.equal(undefined);
  });

  it('defaults labels to the title-cased name and keeps given ones', () => {
    const author = registry.object('author')!;
    expect(author.label).to.equal('Author');
    expect(author.fields.birth_date.label).to.equal('Birth Date');
    expect(registry.object('chapter')!.label).to.equal('Chapter');
    expect(registry.object('book')!.fields.due_date).to.include({ type: 'date', label: 'Due Date' });
  });

  it('reads object properties, datasource defaulting to default', () => {
    const book = registry.object('book')!;
    expect(book).to.include({ label: 'Book', icon: 'book', description: 'A book in the library.', datasource: 'default' });
    expect(registry.object('chapter')!.datasource).to.equal('archive');
  });

  it('normalises select options to {label, value}', () => {
    expect(registry.object('book')!.fields.status.options).to.deep.equal([
      { label: 'available', value: 'available' },
      { label: 'On Loan', value: 'on_loan' },
      { label: 'lost', value: 'lost' },
    ]);
    expect(registry.object('book')!.fields.status.defaultValue).to.equal('available');
  });

  it('keeps relation, attachment and bound properties; forces master_detail required', () => {
    const book = registry.object('book')!;
    expect(book.fields.author).to.include({ type: 'lookup', reference_to: 'author' });
    expect(book.fields.cover).to.deep.include({ type: 'image', accept: ['.jpg', '.png'], max_size: 1048576, max_width: 2000 });
    expect(book.fields.price).to.include({ min: 0, max: 1000 });
    expect(registry.object('chapter')!.fields.book).to.include({ type: 'master_detail', reference_to: 'book', required: true });
  });

  it('names indexes that have no name', () => {
    expect(registry.object('book')!.indexes).to.deep.equal([
      { name: 'book_title_author_idx', fields: ['title', 'author'], unique: false },
      { name: 'book_isbn', fields: ['isbn'], unique: true },
    ]);
  });

  it('merges the rules of the object file and of the validation file, naming unnamed ones', () => {
    const rules = registry.object('book')!.rules;
    expect(rules.map((r) => r.name)).to.deep.equal(['isbn_format', 'range_price', 'status_flow', 'loan_needs_due_date', 'unique_title']);
    expect(rules[1]).to.deep.equal({ name: 'range_price', type: 'range', field: 'price', max: 500, message: 'Price must be at most 500' });
    expect(rules[3]).to.deep.include({ type: 'conditional', when: [['status', '=', 'on_loan']], required: ['due_date'] });
    expect(rules[3].message).to.equal('Due Date is required');
  });

  it("derives each field's validations from its properties and the rules naming it", () => {
    const f = registry.object('book')!.fields;
    expect(f.title.validations).to.deep.equal([
      { type: 'required', message: 'Title is required' },
      { type: 'length', message: 'Title must be at most 200 characters long' },
      { type: 'unique', message: 'The combination of Title, Author must be unique' },
    ]);
    expect(f.isbn.validations).to.deep.equal([
      { type: 'unique', message: 'Isbn must be unique' },
      { type: 'pattern', message: 'An ISBN has 10 to 17 digits or dashes.' },
    ]);
    expect(f.price.validations!.map((v) => v.type)).to.deep.equal(['range', 'range']);
    expect(f.due_date.validations).to.deep.equal([{ type: 'conditional', message: 'Due Date is required' }]);
    expect(f.cover.validations).to.deep.equal([]);
  });

  it('stores permissions with booleans defaulting to false', () => {
    const perms = registry.object('book')!.permissions!;
    expect(perms).to.have.length(2);
    expect(perms[1]).to.deep.equal({
      profile: 'member',
      allow_read: true,
      allow_create: false,
      allow_edit: false,
      allow_delete: false,
      record_filters: [['status', '!=', 'lost']],
      fields: { price: { allow_read: false } },
    });
    expect(registry.object('author')!.permissions).to.equal(undefined);
  });

  it('serves initial data from a list and from {records}, as a copy', () => {
    expect(registry.initialData('book').map((r) => r.id)).to.deep.equal(['b1', 'b2']);
    expect(registry.initialData('author')[1]).to.deep.equal({ id: 'a2', name: 'Stanisław Lem', birth_date: '1921-09-12' });
    expect(registry.initialData('chapter')).to.deep.equal([]);
    registry.initialData('book')[0].title = 'changed';
    expect(registry.initialData('book')[0].title).to.equal('The Dispossessed');
  });

  it('loads hooks from a .ts and a .js file', async () => {
    const mods = registry.hookModules();
    expect(mods.map((m) => m.object)).to.deep.equal(['author', 'book']);
    const [author, book] = mods;
    expect(author.source).to.equal(path.join(VALID, 'objects/author.hook.js'));
    expect(Object.keys(book.handlers)).to.have.members(['beforeCreate', 'afterDelete']);

    const ctx = {
      object: 'book',
      event: 'beforeCreate',
      operation: 'create',
      data: { title: '  The   Left Hand ' },
    } as unknown as HookContext;
    await book.handlers.beforeCreate!(ctx);
    expect(ctx.data!.title).to.equal('The Left Hand');
    const actx = { object: 'author', event: 'beforeUpdate', operation: 'update', data: { name: ' Lem ' } } as unknown as HookContext;
    await author.handlers.beforeUpdate!(actx);
    expect(actx.data!.name).to.equal('Lem');

    expect(registry.object('book')!.hooks).to.deep.equal([
      { event: 'beforeCreate', description: 'beforeCreate hook (book.hook.ts)' },
      { event: 'afterDelete', description: 'Forgets the loans of a deleted book.' },
    ]);
    expect(registry.object('author')!.hooks).to.deep.equal([{ event: 'beforeUpdate', description: 'beforeUpdate hook (author.hook.js)' }]);
    expect(registry.object('chapter')!.hooks).to.deep.equal([]);
  });

  it('merges declared actions with their handlers and adds code-only actions', async () => {
    const actions = registry.object('book')!.actions;
    expect(Object.keys(actions)).to.deep.equal(['checkout', 'restock', 'archive_all', 'reprice']);

    const { handler: checkoutHandler, ...checkout } = actions.checkout;
    expect(checkout).to.deep.equal({
      name: 'checkout',
      type: 'record',
      label: 'Check Out',
      params: { borrower: { type: 'text', label: 'Borrower' }, days: { type: 'number', label: 'Days', required: true, min: 1 } },
    });
    const result = await checkoutHandler!({ object: 'book', action: 'checkout', id: 'b1', input: { days: 7 } } as unknown as ActionContext);
    expect(result).to.deep.equal({ success: true, id: 'b1', days: 7 });

    expect(actions.restock).to.deep.include({
      type: 'global',
      label: 'Restock',
      description: 'Declared here; type, params and handler come from book.action.ts.',
      params: { count: { type: 'number', label: 'Count', required: true } },
    });
    expect(actions.archive_all).to.deep.include({ type: 'global', label: 'Archive All', params: {} });
    expect(actions.reprice).to.deep.include({
      type: 'record',
      label: 'Change Price',
      params: { factor: { type: 'number', label: 'Factor' } },
    });
    for (const a of Object.values(actions)) expect(a.handler, a.name).to.be.a('function');
    expect(registry.object('author')!.actions).to.deep.equal({});
  });

  it('keeps every type as entries, declared custom types included', () => {
    expect(registry.types()).to.deep.equal(['app', 'data', 'menu', 'object', 'permission', 'validation', 'widget']);
    expect(registry.entries('widget')).to.deep.equal([
      { type: 'widget', id: 'shelf', content: { size: 3, name: 'shelf' }, source: path.join(VALID, 'shelf.widget.yml') },
    ]);
    expect(registry.entry('app', 'library')!.content).to.deep.equal({
      label: 'Library',
      objects: ['book', 'author', 'chapter'],
      name: 'library',
    });
    expect(registry.entries('object').map((e) => e.id)).to.deep.equal(['author', 'book', 'chapter']);
    expect(registry.entry('object', 'author')!.content).to.deep.equal({
      fields: { name: { type: 'text', required: true }, birth_date: 'date', bio: 'textarea' },
      name: 'author',
    });
    expect(registry.entries('report')).to.deep.equal([]);
    expect(registry.entry('menu', 'nope')).to.equal(undefined);
  });

  it('setObjectInfo updates the definition and its entry, in this registry only', async () => {
    const other = await MetadataRegistry.load([VALID], { customTypes: ['widget'] });
    other.setObjectInfo('author', { label: 'Writer', description: 'Who wrote it' });
    expect(other.object('author')).to.include({ label: 'Writer', description: 'Who wrote it' });
    expect(other.entry('object', 'author')!.content).to.include({ label: 'Writer', description: 'Who wrote it' });
    expect(registry.object('author')!.label).to.equal('Author');
    expect(() => other.setObjectInfo('nope', { label: 'x' })).to.throw(/nope/);
  });

  it('skips node_modules and dot folders, and files that are not metadata', async () => {
    const reg = await apps.load({
      'todo.object.yml': 'fields:\n  title: text\n',
      'node_modules/pkg/broken.object.yml': 'fields: [',
      '.git/broken.object.yml': 'fields: [',
      '.hidden/ghost.permission.yml': 'nonsense: true',
      'notes.txt': 'not metadata',
      'helpers.ts': 'export const x = 1;',
    });
    expect(reg.objects().map((o) => o.name)).to.deep.equal(['todo']);
    expect(reg.types()).to.deep.equal(['object']);
  });

  it('accepts the .yaml extension, several folders, and an object file with only fields as strings', async () => {
    const a = apps.write({ 'a.object.yaml': 'fields:\n  n: number\n' });
    const b = apps.write({ 'b.object.yml': 'label: Bee\nfields:\n  a:\n    type: lookup\n    reference_to: a\n' });
    const reg = await MetadataRegistry.load([a, b]);
    expect(reg.objects().map((o) => o.label)).to.deep.equal(['A', 'Bee']);
    expect(reg.object('b')!.fields.a.reference_to).to.equal('a');
  });

  it('accepts indexes written as a map and field-level validations', async () => {
    const reg = await apps.load({
      'item.object.yml': [
        'fields:',
        '  code:',
        '    type: text',
        '    validations:',
        '      - type: pattern',
        "        pattern: '^[A-Z]+$'",
        '  qty: number',
        'indexes:',
        '  by_code:',
        '    fields: [code]',
        '    unique: true',
        '  by_qty: [qty]',
      ].join('\n'),
    });
    const item = reg.object('item')!;
    expect(item.indexes).to.deep.equal([
      { name: 'by_code', fields: ['code'], unique: true },
      { name: 'by_qty', fields: ['qty'], unique: false },
    ]);
    expect(item.rules).to.deep.equal([
      { name: 'pattern_code', type: 'pattern', field: 'code', pattern: '^[A-Z]+$', message: 'Code has an invalid format' },
    ]);
    expect(item.fields.code.validations).to.deep.equal([{ type: 'pattern', message: 'Code has an invalid format' }]);
  });
});
