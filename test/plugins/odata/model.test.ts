/**
 * The OData model and its $metadata without a server: navigation property names (one-to-many ones
 * by the kernel's rule, `<field>_nav` stepping aside from fields and from them), Partner and
 * ReferentialConstraint on both sides, Precision, and the capability annotations, read back with
 * a real XML parser.
 */
import { expect } from 'chai';
import type { CallerPermissions, ObjectDefinition } from '../../../kernel';
import { MetadataCache } from '../../../plugins/odata/metadata-cache';
import { ODataModel } from '../../../plugins/odata/model';
import { field, objectDef } from '../../drivers/sql/objects';
import { parseEdmx } from './helpers';

const OWNER = objectDef('owner', [field('name', 'text'), field('boss', 'lookup', { reference_to: 'owner' })]);
const NOTE = objectDef('note', [
  field('text', 'text'),
  field('at', 'datetime'),
  field('opens', 'time'),
  field('data', 'json'),
  field('labels', 'select', { multiple: true, options: [{ label: 'a', value: 'a' }] }),
  field('score', 'number'),
  // Its one-to-many navigation property on owner is named like owner.boss's default `boss_nav`.
  field('author', 'lookup', { reference_to: 'owner', related_name: 'boss_nav' }),
  field('watchers', 'lookup', { reference_to: 'owner', multiple: true }),
]);

function model(objects: ObjectDefinition[], readable: (object: string) => string[] | undefined = () => undefined): ODataModel {
  const byName = new Map(objects.map((o) => [o.name, o]));
  return new ODataModel({
    objects: () => objects,
    object: (name) => byName.get(name),
    revision: () => 1,
    access: (object): CallerPermissions => {
      const fields = readable(object) ?? Object.keys(byName.get(object)!.fields);
      const set = new Set(fields);
      return { canRead: fields.length > 1, canCreate: false, canEdit: false, canDelete: false, readable: set, editable: new Set() };
    },
  });
}

describe('OData model: navigation properties', () => {
  it('names one-to-many navigation properties by the kernel rule; <field>_nav steps aside from them', () => {
    const m = model([OWNER, NOTE]);
    expect(m.collections(OWNER).map((r) => [r.nav, r.target, r.field])).to.deep.equal([
      ['owner_by_boss', 'owner', 'boss'],
      ['boss_nav', 'note', 'author'],
    ]);
    expect(m.relations(OWNER).map((r) => r.nav)).to.deep.equal(['boss_nav_']);
    expect(m.navigation(OWNER, 'boss_nav')).to.include({ reverse: true, target: 'note', field: 'author' });
    expect(m.navigation(OWNER, 'boss_nav_')).to.include({ field: 'boss', target: 'owner' });
    // A multiple relation has no one-to-many side.
    expect(m.relations(NOTE).map((r) => [r.nav, r.partner])).to.deep.equal([
      ['author_nav', 'boss_nav'],
      ['watchers_nav', undefined],
    ]);
  });

  it('gives the parser each kind with the kernel relation name and the target as the caller sees it', () => {
    const m = model([OWNER, NOTE], (o) => (o === 'note' ? ['id', 'text', 'author'] : undefined));
    const owner = m.view(OWNER, undefined);
    expect(m.navigationOf(owner, 'boss_nav', undefined)).to.deep.include({ relation: 'boss_nav', kind: 'reverse' });
    expect(Object.keys(m.navigationOf(owner, 'boss_nav', undefined)!.target.fields)).to.deep.equal(['text', 'author', 'author_nav', 'id']);
    expect(m.navigationOf(owner, 'boss_nav_', undefined)).to.deep.include({ relation: 'boss', kind: 'one' });
    expect(m.navigationOf(owner, 'boss', undefined)).to.deep.include({ relation: 'boss', kind: 'one' });
    const note = m.view(NOTE, undefined);
    // The caller may not read note.watchers: no navigation through it.
    expect(m.navigationOf(note, 'watchers_nav', undefined)).to.equal(undefined);
    expect(m.navigationOf(note, 'nosuch', undefined)).to.equal(undefined);
  });
});

describe('OData $metadata: relations, precision and capabilities', () => {
  const edm = (m: ODataModel, settings = { maxExpandDepth: 2, enableSearch: false, enableBatch: true }) =>
    parseEdmx(new MetadataCache(m, settings).get(undefined).xml);

  it('has Partner on both sides and a ReferentialConstraint on each single relation', () => {
    const { types, sets } = edm(model([OWNER, NOTE]));
    expect(types.note.navigations).to.deep.equal({
      author_nav: { type: 'ObjectQL.owner', nullable: true, partner: 'boss_nav', constraint: { property: 'author', referenced: 'id' } },
      watchers_nav: { type: 'Collection(ObjectQL.owner)', nullable: true },
    });
    expect(types.owner.navigations).to.deep.equal({
      boss_nav_: { type: 'ObjectQL.owner', nullable: true, partner: 'owner_by_boss', constraint: { property: 'boss', referenced: 'id' } },
      owner_by_boss: { type: 'Collection(ObjectQL.owner)', nullable: true, partner: 'boss_nav_' },
      boss_nav: { type: 'Collection(ObjectQL.note)', nullable: true, partner: 'author_nav' },
    });
    expect(sets.owner.bindings).to.deep.equal({ boss_nav_: 'owner', owner_by_boss: 'owner', boss_nav: 'note' });
  });

  it('leaves out a one-to-many navigation property whose relation field the caller may not read, and its Partner', () => {
    const { types } = edm(model([OWNER, NOTE], (o) => (o === 'note' ? ['id', 'text'] : undefined)));
    expect(types.owner.navigations).not.to.have.property('boss_nav');
    expect(types.note.navigations).to.deep.equal({});
  });

  it('declares millisecond precision on date-times and times of day', () => {
    const { types } = edm(model([OWNER, NOTE]));
    expect(types.note.properties.at).to.deep.include({ type: 'Edm.DateTimeOffset', precision: 3 });
    expect(types.note.properties.opens).to.deep.include({ type: 'Edm.TimeOfDay', precision: 3 });
    expect(types.note.properties.created_at.precision).to.equal(3);
    expect(types.note.properties.text).not.to.have.property('precision');
  });

  it('declares the capabilities: restrictions per entity set, $apply with its properties, filter functions and $batch', () => {
    const { annotations } = edm(model([OWNER, NOTE]));
    const container = annotations['ObjectQL.Container'];
    expect(container['Capabilities.FilterFunctions'].Collection.String).to.include.members(['contains', 'any', 'all', 'in']);
    expect(container['Capabilities.BatchSupported'].Bool).to.equal('true');
    const note = annotations['ObjectQL.Container/note'];
    const values = (term: string) =>
      Object.fromEntries([note[term].Record.PropertyValue].flat().map((v: any) => [v.Property, v.Collection ?? v.Bool ?? v.Int ?? v]));
    expect(values('Capabilities.FilterRestrictions')).to.deep.equal({
      Filterable: 'true',
      NonFilterableProperties: { PropertyPath: 'data' },
      MaxLevels: '2',
    });
    expect(values('Capabilities.SortRestrictions').NonSortableProperties.PropertyPath).to.deep.equal(['data', 'labels', 'watchers']);
    expect(values('Capabilities.ExpandRestrictions')).to.deep.equal({ Expandable: 'true', MaxLevels: '2' });
    expect(values('Capabilities.CountRestrictions').NonCountableNavigationProperties.NavigationPropertyPath).to.equal('watchers_nav');
    expect(values('Capabilities.SearchRestrictions')).to.deep.equal({ Searchable: 'false' });
    expect(note['Capabilities.TopSupported'].Bool).to.equal('true');
    expect(note['Capabilities.SkipSupported'].Bool).to.equal('true');
    const apply = values('Aggregation.ApplySupported');
    expect(apply.Transformations.String).to.deep.equal(['aggregate', 'groupby', 'filter', 'topcount', 'bottomcount', 'identity']);
    expect(apply.GroupableProperties.PropertyPath)
      .to.include.members(['text', 'score', 'author', 'at'])
      .and.not.include.members(['data', 'labels']);
    const aggregatable = Object.fromEntries(
      apply.AggregatableProperties.Record.map((r: any) => [r.PropertyValue[0].PropertyPath, r.PropertyValue[1].Collection.String]),
    );
    expect(aggregatable.score).to.deep.equal(['sum', 'average', 'min', 'max', 'countdistinct']);
    expect(aggregatable.text).to.deep.equal(['min', 'max', 'countdistinct']);
    expect(aggregatable).not.to.have.property('labels');
  });
});
