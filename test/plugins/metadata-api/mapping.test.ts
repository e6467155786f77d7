/**
 * The metadata API's pure mapping, without HTTP or files: descriptors from definitions, what a
 * viewer may see (through the engine's real ObjectPermissions), the PUT body check, generic types
 * and the read-only POST.
 */
import { expect } from 'chai';
import type { MetadataEntry, ObjectDefinition, User } from '../../../kernel';
import { ObjectPermissions } from '../../../kernel/engine/permissions';
import { describeField } from '../../../plugins/metadata-api/describe';
import * as api from '../../../plugins/metadata-api/mapping';

const ADMIN_ROLES = new Set(['admin']);

function book(): ObjectDefinition {
  return {
    name: 'book',
    label: 'Book',
    icon: 'book',
    datasource: 'default',
    indexes: [],
    rules: [],
    source: '/srv/app/metadata/book.object.yml',
    fields: {
      id: { name: 'id', type: 'text', label: 'ID', system: true },
      title: {
        name: 'title',
        type: 'text',
        label: 'Title',
        required: true,
        unique: true,
        max_length: 200,
        validations: [{ type: 'required', message: 'Title is required' }],
      },
      genre: {
        name: 'genre',
        type: 'select',
        label: 'Genre',
        options: [
          { label: 'Sci-Fi', value: 'scifi' },
          { label: 'crime', value: 'crime' },
        ],
        defaultValue: 'crime',
      },
      cover: { name: 'cover', type: 'image', label: 'Cover', multiple: true, accept: ['.png'], max_size: 1000, max_width: 800 },
      cost: { name: 'cost', type: 'currency', label: 'Cost', min: 0 },
    },
    actions: {
      lend: {
        name: 'lend',
        type: 'record',
        label: 'Lend',
        params: { to: { type: 'lookup', label: 'To', required: true, reference_to: 'reader' } },
      },
    },
    permissions: [
      {
        profile: 'reader',
        allow_read: true,
        allow_create: false,
        allow_edit: false,
        allow_delete: false,
        fields: { cost: { allow_read: false } },
      },
    ],
    hooks: [{ event: 'beforeCreate', description: 'fills the slug' }],
  };
}
const open: ObjectDefinition = {
  ...book(),
  name: 'note',
  label: 'Note',
  permissions: undefined,
  actions: {},
  hooks: [],
  icon: undefined,
  description: undefined,
};

function source(defs: ObjectDefinition[], extra: MetadataEntry[] = []): api.MetadataSource & { patches: unknown[] } {
  const entries = [...defs.map((d) => ({ type: 'object', id: d.name, content: {} })), ...extra];
  const patches: unknown[] = [];
  return {
    patches,
    objects: () => defs,
    object: (name) => defs.find((d) => d.name === name),
    types: () => [...new Set(entries.map((e) => e.type))].sort(),
    entries: (type) => entries.filter((e) => e.type === type),
    entry: (type, id) => entries.find((e) => e.type === type && e.id === id),
    setObjectInfo: (name, patch) => void patches.push({ name, patch }),
  };
}

function viewer(user?: User): api.Viewer {
  const perms = new Map<string, ObjectPermissions>();
  return {
    user,
    admin: !!user?.roles.includes('admin'),
    readable(def) {
      if (!perms.has(def.name)) perms.set(def.name, new ObjectPermissions(def, ADMIN_ROLES));
      const access = perms.get(def.name)!.access(user);
      return access.allowed.read ? access.readable : undefined;
    },
  };
}

const reader = viewer({ id: 'r', roles: ['reader'] });
const stranger = viewer({ id: 's', roles: ['other'] });
const admin = viewer({ id: 'a', roles: ['admin'] });
const anonymous = viewer();

function throws(fn: () => unknown, code: string, ...named: string[]): any {
  try {
    fn();
  } catch (err: any) {
    expect(err.code, err.message).to.equal(code);
    for (const n of named) expect(err.message).to.include(n);
    return err;
  }
  throw new Error(`expected ${code}`);
}

describe('metadata API mapping', () => {
  it('describes a field by the spec: options as values, labels aside, bounds and attachment properties when set', () => {
    const def = book();
    expect(describeField(def.fields.genre)).to.deep.equal({
      name: 'genre',
      type: 'select',
      label: 'Genre',
      required: false,
      unique: false,
      multiple: false,
      options: ['scifi', 'crime'],
      option_labels: { scifi: 'Sci-Fi', crime: 'crime' },
      defaultValue: 'crime',
    });
    expect(describeField(def.fields.cover)).to.deep.equal({
      name: 'cover',
      type: 'image',
      label: 'Cover',
      required: false,
      unique: false,
      multiple: true,
      accept: ['.png'],
      max_size: 1000,
      max_width: 800,
    });
    expect(describeField(def.fields.title, true))
      .to.include({ max_length: 200, required: true, unique: true })
      .and.to.deep.include({ validations: [{ type: 'required', message: 'Title is required' }] });
    expect(describeField(def.fields.id, true)).to.deep.include({ system: true, readonly: true, validations: [] });
  });

  it('describes objects without their source, fields as a map in the list and an array alone', () => {
    const src = source([book(), open]);
    const { objects } = api.listObjects(src, admin);
    expect(objects.map((o) => o.name)).to.deep.equal(['book', 'note']);
    expect(Object.keys(objects[0].fields)).to.deep.equal(['id', 'title', 'genre', 'cover', 'cost']);
    const one = api.getObject(src, admin, 'book');
    expect(one.fields.map((f) => f.name)).to.deep.equal(['id', 'title', 'genre', 'cover', 'cost']);
    expect(one.hooks).to.deep.equal([{ event: 'beforeCreate', description: 'fills the slug' }]);
    expect(one.actions).to.deep.equal([
      {
        name: 'lend',
        type: 'record',
        label: 'Lend',
        params: { to: { type: 'lookup', label: 'To', required: true, reference_to: 'reader' } },
      },
    ]);
    expect(JSON.stringify([objects, one])).not.to.include('/srv/app');
    expect(api.getObject(src, anonymous, 'note')).not.to.have.keys('icon', 'description');
  });

  it('shows each viewer the objects and fields it may read; hidden is the same 404 as unknown', () => {
    const src = source([book(), open]);
    expect(api.getObject(src, reader, 'book').fields.map((f) => f.name)).to.deep.equal(['id', 'title', 'genre', 'cover']);
    throws(() => api.getField(src, reader, 'book', 'cost'), 'NOT_FOUND', "'cost'", "'book'");
    expect(api.getField(src, admin, 'book', 'cost').name).to.equal('cost');
    for (const v of [stranger, anonymous]) {
      expect(api.listObjects(src, v).objects.map((o) => o.name)).to.deep.equal(['note']);
      const hidden = throws(() => api.getObject(src, v, 'book'), 'NOT_FOUND', "'book'");
      const unknown = throws(() => api.getObject(src, v, 'nope'), 'NOT_FOUND', "'nope'");
      expect(hidden.message.replace('book', 'X')).to.equal(unknown.message.replace('nope', 'X'));
      throws(() => api.listActions(src, v, 'book'), 'NOT_FOUND');
    }
  });

  it('checks the PUT body and who sends it', () => {
    const src = source([book()]);
    throws(() => api.updateObjectInfo(src, anonymous, 'book', { label: 'X' }), 'UNAUTHORIZED');
    throws(() => api.updateObjectInfo(src, reader, 'book', { label: 'X' }), 'FORBIDDEN', 'admin');
    throws(() => api.updateObjectInfo(src, admin, 'nope', { label: 'X' }), 'NOT_FOUND', "'nope'");
    expect(throws(() => api.parseInfoPatch({ label: 'X', a: 1, b: 2 }), 'INVALID_REQUEST', "'a'", "'b'").details).to.deep.equal({
      keys: ['a', 'b'],
    });
    throws(() => api.parseInfoPatch({ label: '' }), 'INVALID_REQUEST', "'label'");
    throws(() => api.parseInfoPatch({ description: 1 }), 'INVALID_REQUEST', "'description'");
    throws(() => api.parseInfoPatch({}), 'INVALID_REQUEST', 'Nothing to update');
    throws(() => api.parseInfoPatch(null), 'INVALID_REQUEST', 'JSON object');
    expect(api.updateObjectInfo(src, admin, 'book', { description: 'Printed.' })).to.deep.equal({ success: true });
    expect(src.patches).to.deep.equal([{ name: 'book', patch: { description: 'Printed.' } }]);
  });

  it('serves any loaded type; permission, validation and data only to admins', () => {
    const src = source(
      [book(), open],
      [
        { type: 'view', id: 'shelf', content: { name: 'shelf', object: 'book' }, source: '/srv/app/metadata/shelf.view.yml' },
        { type: 'permission', id: 'book', content: { permissions: [] } },
      ],
    );
    expect(api.listEntries(src, anonymous, 'view')).to.deep.equal({
      type: 'view',
      items: [{ id: 'shelf', content: { name: 'shelf', object: 'book' } }],
    });
    expect(api.getEntry(src, anonymous, 'view', 'shelf')).to.deep.equal({ name: 'shelf', object: 'book' });
    expect(api.listEntries(src, reader, 'objects').items.map((i) => i.id)).to.deep.equal(['book', 'note']);
    expect(api.getEntry(src, reader, 'object', 'book')).to.deep.equal(api.getObject(src, reader, 'book'));
    throws(() => api.listEntries(src, anonymous, 'widget'), 'NOT_FOUND', "'widget'");
    throws(() => api.getEntry(src, anonymous, 'view', 'nope'), 'NOT_FOUND', "'nope'", "'view'");
    for (const type of api.ADMIN_ONLY_TYPES) {
      throws(() => api.listEntries(src, anonymous, type), 'UNAUTHORIZED');
      throws(() => api.getEntry(src, reader, type, 'book'), 'FORBIDDEN');
    }
    expect(api.getEntry(src, admin, 'permission', 'book')).to.deep.equal({ permissions: [] });
    throws(() => api.listEntries(src, admin, 'data'), 'NOT_FOUND', "'data'");
  });

  it('refuses every write: 401/403 before saying the storage is read-only', () => {
    throws(() => api.refuseWrite(anonymous, 'view', 'shelf'), 'UNAUTHORIZED');
    throws(() => api.refuseWrite(reader, 'view', 'shelf'), 'FORBIDDEN');
    const err = throws(() => api.refuseWrite(admin, 'view', 'shelf'), 'INVALID_REQUEST', 'read-only', "view 'shelf'");
    expect(err.details).to.deep.equal({ type: 'view', id: 'shelf', writable: false });
    throws(() => api.refuseWrite(admin, 'objects', 'book', '/m'), 'INVALID_REQUEST', "object 'book'", 'PUT /m/object/book');
  });
});
