import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ERROR_CODES, ObjectQLError, toObjectQLError, validationError, type ErrorCode } from '../../kernel';

const SPEC = resolve(__dirname, '../../docs/spec.md');
const DESIGN = resolve(__dirname, '../../docs/design.md');

/** `| CODE | status | condition |` rows of a markdown table. */
function codeRows(table: string): Array<{ code: string; status: string }> {
  return [...table.matchAll(/^\| ([A-Z_]+) \| ([^|]+) \|/gm)].map((m) => ({ code: m[1], status: m[2].trim() }));
}

describe('errors', () => {
  it('renders every code with its status in the spec body shape', () => {
    for (const [code, status] of Object.entries(ERROR_CODES) as Array<[ErrorCode, number]>) {
      const err = new ObjectQLError(code, `message for ${code}`, { hint: 1 });
      expect(err.status, code).to.equal(status);
      expect(err.toBody()).to.deep.equal({ error: { code, message: `message for ${code}`, details: { hint: 1 } } });
    }
  });

  it('keeps the code table in step with the spec (docs/spec.md) and the codes beside it (docs/design.md)', () => {
    const spec = codeRows(readFileSync(SPEC, 'utf8').split('## Errors')[1].split('\n## ')[0]);
    const beside = codeRows(readFileSync(DESIGN, 'utf8').split('### Error codes beside the spec')[1].split('\n## ')[0]);
    expect(spec.length).to.be.greaterThan(15);
    const rows = [...spec, ...beside];
    expect(rows.map((r) => r.code).sort()).to.deep.equal(Object.keys(ERROR_CODES).sort());
    for (const { code, status } of rows) {
      const n = Number.parseInt(status, 10);
      if (Number.isInteger(n)) expect(ERROR_CODES[code as ErrorCode], code).to.equal(n);
    }
  });

  it('keeps the code of a plain error carrying a spec code, hides anything else', () => {
    const plain = Object.assign(new Error('no way'), { code: 'FORBIDDEN' });
    expect(toObjectQLError(plain).toBody()).to.deep.equal({ error: { code: 'FORBIDDEN', message: 'no way' } });
    const internal = toObjectQLError(Object.assign(new Error('SQLITE_BUSY: database is locked'), { code: 'SQLITE_BUSY' }));
    expect(internal.code).to.equal('INTERNAL_ERROR');
    expect(internal.message).to.not.contain('SQLITE');
  });

  it('names each failing field in a validation error', () => {
    const err = validationError({ email: 'must be a valid email address', age: 'must be a number' });
    expect(err.code).to.equal('VALIDATION_ERROR');
    expect(err.details).to.deep.equal({ fields: { email: 'must be a valid email address', age: 'must be a number' } });
    expect(err.message).to.contain('email').and.to.contain('age');
  });
});
