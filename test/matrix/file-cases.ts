/**
 * The File API under the permission matrix (plugins/files, {routes.files}): the files the seeded
 * records of FILE_OBJECT hold (server.ts), asked for by every user, and uploads for each of its
 * attachment fields (FILE_FIELDS) — every expectation read from the object's cells in table.ts:
 * - download (and an image's small thumbnail): the exact bytes for a user who reads the record
 *   (ids) and the field (not hidden); anyone else is 403 FILE_ACCESS_DENIED;
 * - upload for a field: 200 {data: attachment} for a user who may create or edit the object and
 *   for whom the field is neither hidden nor read-only; a field hidden from a reader of the object
 *   is refused as an unknown one (400 FILE_VALIDATION_ERROR, invalid_field); anyone else is 403
 *   FILE_ACCESS_DENIED;
 * - attaching, by a user who may write the field of a record: a file they uploaded, or one a
 *   record they may download from holds; another file is 403 FILE_ACCESS_DENIED and changes nothing.
 * The anonymous caller is 401 UNAUTHORIZED throughout.
 */
import { expect } from 'chai';
import sharp from 'sharp';
import { rpcAdapter } from './adapters/rpc';
import { expectOk } from './checks';
import { seededContent, type Download } from './files';
import type { Outcome, Rec } from './protocol';
import type { MatrixServer } from './server';
import { cell, FILE_FIELDS, FILE_OBJECT, RECORDS } from './table';
import { isAnonymousCaller, MATRIX_USERS, USER_NAMES, type MatrixUser, type UserName } from './users';

const object = FILE_OBJECT;
const FIELDS = Object.entries(FILE_FIELDS);

/** The table's answer: `user` reads `field` of `record`. */
function mayRead(user: UserName, record: string, field: string): boolean {
  const c = cell(object, user);
  return c.ids.includes(record) && !c.hidden.includes(field);
}

/** The table's answer: `user` writes `field` (creates or edits the object, the field neither hidden nor read-only). */
function mayWrite(user: UserName, field: string): boolean {
  const c = cell(object, user);
  return /[CU]/.test(c.ops) && !c.hidden.includes(field) && !c.readonly.includes(field);
}

const verdict = (user: UserName, allowed: boolean) => (isAnonymousCaller(MATRIX_USERS[user]) ? '401' : allowed ? '200' : '403');

/** A field hidden from a user who reads the object: to them it does not exist. */
function hiddenFrom(user: UserName, field: string): boolean {
  const c = cell(object, user);
  return c.ops.includes('R') && c.hidden.includes(field);
}

const uploadVerdict = (user: UserName, field: string) =>
  !isAnonymousCaller(MATRIX_USERS[user]) && hiddenFrom(user, field) ? '400' : verdict(user, mayWrite(user, field));

/** 403 FILE_ACCESS_DENIED, or 401 UNAUTHORIZED for the anonymous caller. */
function expectFileDenied(o: Outcome, u: MatrixUser, what: string): void {
  const anonymous = isAnonymousCaller(u);
  expect(o.status, `${what}: ${JSON.stringify(o.raw)}`).to.equal(anonymous ? 401 : 403);
  expect(o.error?.code, `${what}: ${JSON.stringify(o.raw)}`).to.equal(anonymous ? 'UNAUTHORIZED' : 'FILE_ACCESS_DENIED');
}

/** 200 with exactly `bytes`, served as the attachment's type. */
function expectBytes(got: Download, bytes: Buffer, type: string, what: string): void {
  expect(got.status, `${what}: ${JSON.stringify(got.raw)}`).to.equal(200);
  expect(got.type?.split(';')[0], `${what}: Content-Type`).to.equal(type);
  expect(got.bytes?.toString('base64'), `${what}: the bytes`).to.equal(bytes.toString('base64'));
}

export function fileCases(env: MatrixServer): void {
  describe(`File API (${object}: ${FIELDS.map(([f, t]) => `${f} ${t}`).join(', ')})`, () => {
    it(`${object}'s attachment fields are the table's`, () => {
      const def = env.client.definition(object)!;
      const declared = Object.values(def.fields).filter((f) => f.type === 'file' || f.type === 'image');
      expect(Object.fromEntries(declared.map((f) => [f.name, f.type]))).to.deep.equal(FILE_FIELDS);
    });

    for (const user of USER_NAMES) {
      for (const record of RECORDS[object]) {
        const title = FIELDS.map(([f]) => `${f} ${verdict(user, mayRead(user, record, f))}`).join(', ');
        it(`${user} · ${record}: download ${title}`, () => downloads(env, user, record));
      }
      it(`${user}: upload ${FIELDS.map(([f]) => `${f} ${uploadVerdict(user, f)}`).join(', ')}`, () => uploads(env, user));
      const c = cell(object, user);
      const writable = FIELDS.filter(([f]) => c.ops.includes('U') && mayWrite(user, f));
      if (writable.length)
        it(`${user}: attaching to ${c.writeIds[0]}'s ${writable.map(([f]) => f).join(', ')}`, () => attaching(env, user));
    }
  });
}

/** Each attachment of `record`, as `user`: the file (and an image's small thumbnail), or a denial. */
async function downloads(env: MatrixServer, user: UserName, record: string): Promise<void> {
  const u = MATRIX_USERS[user];
  const held = (await env.truth(object)).get(record)!;
  for (const [field, type] of FIELDS) {
    const a = held[field] as Rec | null;
    expect(a?.id, `${record}.${field} holds a seeded file: ${JSON.stringify(a)}`).to.be.a('string');
    const content = await seededContent(type, record, field);
    const what = `${user} downloads ${record}.${field}`;
    const file = await env.files.download(u, `/${a!.id}`);
    const thumb = type === 'image' ? await env.files.download(u, `/${a!.id}/thumbnail?size=small`) : undefined;
    if (!mayRead(user, record, field) || isAnonymousCaller(u)) {
      expectFileDenied(file, u, what);
      if (thumb) expectFileDenied(thumb, u, `${what} (thumbnail)`);
      continue;
    }
    expectBytes(file, content.bytes, a!.type, what);
    if (!thumb) continue;
    expect(thumb.status, `${what} (thumbnail): ${JSON.stringify(thumb.raw)}`).to.equal(200);
    const meta = await sharp(thumb.bytes).metadata();
    expect(thumb.type, `${what} (thumbnail)`).to.match(/^image\//);
    expect(Math.max(meta.width, meta.height), `${what} (thumbnail): fits the small box`).to.be.within(1, 64);
  }
}

/** One upload per attachment field, as `user`: the attachment (which the uploader may then download), or a denial. */
async function uploads(env: MatrixServer, user: UserName): Promise<void> {
  const u = MATRIX_USERS[user];
  for (const [field, type] of FIELDS) {
    const content = await seededContent(type, `upload-${user}`, field);
    const what = `${user} uploads for ${object}.${field}`;
    const o = await env.files.upload(u, object, field, content);
    if (uploadVerdict(user, field) === '400') {
      expect(o.status, `${what}: ${JSON.stringify(o.raw)}`).to.equal(400);
      expect(o.error, what).to.deep.include({
        code: 'FILE_VALIDATION_ERROR',
        details: { file: null, reason: 'invalid_field', object, field },
      });
      continue;
    }
    if (!mayWrite(user, field) || isAnonymousCaller(u)) {
      expectFileDenied(o, u, what);
      continue;
    }
    expectOk(o, what);
    expect(o.record, `${what}: ${JSON.stringify(o.raw)}`).to.include({
      name: content.name,
      size: content.bytes.length,
      uploaded_by: u.user!.id,
    });
    expectBytes(await env.files.download(u, `/${o.record!.id}`), content.bytes, o.record!.type, `${what}: the uploader downloads it`);
  }
}

/**
 * Into each field `user` may write of their first writable record: a file they just uploaded
 * (stored, and theirs to download), then the file each other record holds there (accepted
 * exactly when they may download it). Every write starts from the seeded store and puts it back.
 */
async function attaching(env: MatrixServer, user: UserName): Promise<void> {
  const u = MATRIX_USERS[user];
  const rpc = rpcAdapter.connect(env.client).data!;
  const target = cell(object, user).writeIds[0];
  const step = async (run: () => Promise<void>) => {
    try {
      await run();
    } finally {
      await env.reset();
    }
  };
  for (const [field, type] of FIELDS.filter(([f]) => mayWrite(user, f))) {
    await step(async () => {
      const content = await seededContent(type, `attach-${user}`, field);
      const up = await env.files.upload(u, object, field, content);
      expectOk(up, `${user} uploads for ${field}`);
      const what = `${user} attaches the upload to ${target}.${field}`;
      expectOk(await rpc.update(u, object, target, { [field]: up.record }), what);
      expect(((await env.truth(object)).get(target)![field] as Rec | null)?.id, `${what}: stored`).to.equal(up.record!.id);
      expectBytes(await env.files.download(u, `/${up.record!.id}`), content.bytes, up.record!.type, `${what}: then downloads it`);
    });
    for (const source of RECORDS[object].filter((id) => id !== target)) {
      await step(async () => {
        const file = (await env.truth(object)).get(source)![field] as Rec;
        const what = `${user} attaches ${source}.${field} (file ${file.id}) to ${target}.${field}`;
        const before = await env.capture();
        const o = await rpc.update(u, object, target, { [field]: file });
        if (!mayRead(user, source, field)) {
          expectFileDenied(o, u, what);
          return env.expectUnchanged(before, what);
        }
        expectOk(o, what);
        expect(((await env.truth(object)).get(target)![field] as Rec | null)?.id, `${what}: stored`).to.equal(file.id);
      });
    }
  }
}
