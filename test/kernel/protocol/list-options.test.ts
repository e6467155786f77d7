import { expect } from 'chai';
import { ObjectQLError } from '../../../kernel';
import { listOptions } from '../../../kernel/protocol';

describe('protocol layer: list options', () => {
  it('passes what was given and leaves out what was not (null is not given)', () => {
    expect(listOptions({})).to.deep.equal({});
    expect(listOptions({ top: null, skip: null, sort: null, fields: null, filters: null, expand: null })).to.deep.equal({});
    const filters = [['status', '=', 'active']];
    expect(listOptions({ top: 5, skip: 10, sort: '-name', fields: ['name'], filters, groupBy: ['status'], aggregate: [] })).to.deep.equal({
      top: 5,
      skip: 10,
      sort: '-name',
      fields: ['name'],
      filters,
      groupBy: ['status'],
      aggregate: [],
    });
  });

  it("takes 'limit' for 'top', and refuses two different page sizes with one message", () => {
    expect(listOptions({ limit: 7 })).to.deep.equal({ top: 7 });
    expect(listOptions({ top: 7, limit: 7 })).to.deep.equal({ top: 7 });
    expect(listOptions({ top: 7, limit: null })).to.deep.equal({ top: 7 });
    const err = (() => {
      try {
        listOptions({ top: 1, limit: 2 });
      } catch (e) {
        return e;
      }
    })();
    expect(err).to.be.instanceOf(ObjectQLError);
    expect((err as ObjectQLError).code).to.equal('INVALID_REQUEST');
    expect((err as ObjectQLError).message).to.equal(
      "'top' (1) and 'limit' (2) disagree: 'limit' is a deprecated alias of 'top'; give one of them",
    );
    expect((err as ObjectQLError).details).to.deep.equal({ parameter: 'limit' });
  });

  it('drops null entries of a field list (a GraphQL list may hold them)', () => {
    expect(listOptions({ fields: ['name', null, 'status'] }).fields).to.deep.equal(['name', 'status']);
  });

  it("refuses an expand option the spec does not name, at any depth ('filter' is the engine's own)", () => {
    expect(() => listOptions({ expand: { account: { filter: {} } } })).to.throw(ObjectQLError, "expand.account: unknown option 'filter'");
    expect(() => listOptions({ expand: { project: { expand: { account: { filter: {} } } } } })).to.throw(
      ObjectQLError,
      'expand.project.account',
    );
    expect(listOptions({ expand: { account: { fields: ['name'] } } }).expand).to.deep.equal({ account: { fields: ['name'] } });
  });
});
