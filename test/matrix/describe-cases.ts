/**
 * The describing side of the matrix: what a protocol tells each user about the objects (the
 * metadata API today; OData $metadata and GraphQL introspection later). A user is shown exactly
 * the objects they may read and, of each, exactly the fields they may read; an object or field
 * they may not read is answered as one that does not exist; only admins change metadata.
 */
import { expect } from 'chai';
import { expectDenied, expectOk, expectSameAs } from './checks';
import type { DescribeOps } from './protocol';
import type { MatrixServer } from './server';
import { cell, NO_SUCH_FIELD, OBJECTS, readable } from './table';
import { MATRIX_USERS, USER_NAMES } from './users';

const NO_SUCH_OBJECT = 'no_such_object';

export function describeCases(env: MatrixServer, ops: DescribeOps): void {
  for (const user of USER_NAMES) {
    const u = MATRIX_USERS[user];
    it(`${user}: the objects listed, with the fields they may read`, async () => {
      const res = await ops.objects(u);
      expectOk(res, 'objects');
      const shown = readable(user);
      expect(Object.keys(res.described!).sort(), 'objects listed').to.deep.equal([...shown].sort());
      for (const object of shown) {
        const hidden = cell(object, user).hidden;
        expect(res.described![object].sort(), `fields of ${object}`).to.deep.equal(
          env
            .fields(object)
            .filter((f) => !hidden.includes(f))
            .sort(),
        );
      }
    });

    it(`${user}: each object described, or not found`, async () => {
      const missing = await ops.object(u, NO_SUCH_OBJECT);
      for (const object of OBJECTS) {
        const c = cell(object, user);
        const res = await ops.object(u, object);
        if (!c.ops.includes('R')) {
          expectSameAs(res, missing, object, NO_SUCH_OBJECT, `describe ${object}`);
          continue;
        }
        expectOk(res, `describe ${object}`);
        expect([...res.fields!].sort(), `fields of ${object}`).to.deep.equal(
          env
            .fields(object)
            .filter((f) => !c.hidden.includes(f))
            .sort(),
        );
        if (!ops.field) continue;
        for (const h of c.hidden)
          expectSameAs(
            await ops.field(u, object, h),
            await ops.field(u, object, NO_SUCH_FIELD),
            h,
            NO_SUCH_FIELD,
            `describe ${object}.${h}`,
          );
        expectOk(await ops.field(u, object, 'id'), `describe ${object}.id`);
      }
    });

    if (ops.updateObject) {
      it(`${user}: changing an object's label ${user === 'root' ? 'succeeds' : 'is denied'}`, async () => {
        try {
          const res = await ops.updateObject!(u, 'project', { label: 'Matrix' });
          if (user === 'root') {
            expectOk(res, 'update');
            expect(env.kernel.registry.object('project')!.label).to.equal('Matrix');
          } else {
            expectDenied(res, u, 'admin', 'update');
            expect(env.kernel.registry.object('project')!.label).to.equal('Project');
          }
        } finally {
          await env.reset();
        }
      });
    }
  }
}
