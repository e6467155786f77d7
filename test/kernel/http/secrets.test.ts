/**
 * Secrets stay secret (kernel/logger.ts, kernel/http/security.ts): which credentials a request
 * carries, how they are taken out of an error body, and which log paths are redacted. The same
 * over real HTTP with the built-in protocols: test/server/http/secrets.test.ts.
 */
import { expect } from 'chai';
import { requestCredentials, withoutCredentials } from '../../../kernel/http/security';
import { redactPaths } from '../../../kernel/logger';

const API_KEY = 'oql_live_0123456789abcdef';

describe('credentials in an error body', () => {
  it('leaves bodies alone when the request carries no credential, and ignores values too short to be one', () => {
    const body = { error: { code: 'UNAUTHORIZED' as const, message: 'API key abc rejected' } };
    expect(withoutCredentials(body, { headers: {} })).to.equal(body);
    expect(withoutCredentials(body, { headers: { 'x-api-key': 'abc' } })).to.equal(body);
    expect(withoutCredentials(body, { headers: { 'x-api-key': 'key abc rejected' } }).error.message).to.equal('API [redacted]');
    expect(requestCredentials({ headers: { cookie: 'a=1; session_id=0123456789', 'x-api-key': API_KEY } })).to.deep.equal([
      API_KEY,
      '0123456789',
    ]);
  });
});

describe('the log redaction paths', () => {
  it('covers the credential headers and secret keys at the top and two levels down', () => {
    const paths = redactPaths();
    for (const p of [
      'authorization',
      '*.*.authorization',
      '*.*["x-api-key"]',
      '*["set-cookie"]',
      'password',
      '*.password',
      '*.*.keyHash',
      'token',
      '*.secret',
    ]) {
      expect(paths).to.include(p);
    }
  });
});
