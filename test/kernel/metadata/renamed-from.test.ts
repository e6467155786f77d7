/** `renamed_from` (schema migrations, docs/migrations.md): kept on the field, and checked like every key. */
import { expect } from 'chai';
import { TempApps } from './write-app';

describe('metadata registry: renamed_from', () => {
  const apps = new TempApps();
  after(() => apps.cleanup());

  it('keeps the former name on the field', async () => {
    const registry = await apps.load({ 'book.object.yml': 'fields:\n  title:\n    type: text\n    renamed_from: name\n' });
    expect(registry.object('book')!.fields.title.renamed_from).to.equal('name');
  });

  it('refuses a misspelt key with the file, the path and the line', async () => {
    const err = await apps.loadError({ 'book.object.yml': 'fields:\n  title:\n    type: text\n    renamed_form: name\n' });
    expect(err.message).to.include('book.object.yml: fields.title.renamed_form: unknown key (line 4)');
  });

  it('refuses a former name that is not a name, the field itself, a field still declared, or claimed twice', async () => {
    const err = await apps.loadError({
      'book.object.yml': [
        'fields:',
        '  a: {type: text, renamed_from: "not a name"}',
        '  b: {type: text, renamed_from: b}',
        '  c: {type: text, renamed_from: a}',
        '  d: {type: text, renamed_from: old}',
        '  e: {type: text, renamed_from: old}',
        '',
      ].join('\n'),
    });
    expect(err.problems.map((p) => `${p.path}: ${p.reason}`)).to.have.members([
      'fields.a.renamed_from: must be a name: letters, digits and _ (not starting with a digit)',
      "fields.b.renamed_from: names the field itself ('b')",
      "fields.c.renamed_from: 'a' is still a field of this object; a field renamed from it cannot keep both",
      "fields.e.renamed_from: 'old' is already the former name of field 'd'",
    ]);
  });
});
