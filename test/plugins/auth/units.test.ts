/** The pure parts of the auth plugin, without I/O: claims, API key table, memory store, cookie parsing. */
import { expect } from 'chai';
import { ApiKeyTable, hashApiKey } from '../../../plugins/auth/api-keys';
import { userFromClaims } from '../../../plugins/auth/claims';
import { readSessionCookie } from '../../../plugins/auth/cookie';
import { MemorySessionStore } from '../../../plugins/auth/memory-store';
import { CredentialRejected } from '../../../plugins/auth/rejection';
import { SessionManager } from '../../../plugins/auth/sessions';

describe('auth: units', () => {
  describe('userFromClaims', () => {
    it('takes id and roles from the configured claims and keeps the rest', () => {
      expect(userFromClaims({ sub: 'u1', roles: ['a'], iss: 'x', exp: 1 }, 'sub', 'roles')).to.deep.equal({
        id: 'u1',
        roles: ['a'],
        iss: 'x',
        exp: 1,
      });
      expect(userFromClaims({ sub: 'u1', scope: 'read write' }, 'sub', 'scope').roles).to.deep.equal(['read', 'write']);
      expect(userFromClaims({ sub: 'u1', a: { b: { c: ['x'] } } }, 'sub', 'a.b.c').roles).to.deep.equal(['x']);
      expect(userFromClaims({ sub: 'u1', a: ['x'] }, 'sub', 'a.length').roles).to.deep.equal([]);
    });

    it('cannot be made to pick up inherited properties or overwrite id and roles', () => {
      expect(userFromClaims({ sub: 'u1' }, 'sub', 'constructor.name').roles).to.deep.equal([]);
      const user = userFromClaims({ sub: 'u1', id: 'root', roles: ['x'], anonymous: true }, 'sub', 'roles');
      expect(user).to.deep.equal({ id: 'u1', roles: ['x'] });
      expect(() => userFromClaims({ sub: 7 }, 'sub', 'roles')).to.throw(CredentialRejected, "'sub' claim is missing or not a string");
    });
  });

  describe('ApiKeyTable', () => {
    it('finds the user of any configured key and refuses others', () => {
      const table = new ApiKeyTable([
        { key: 'first-key-0123456789', user: { id: 'a', roles: [] } },
        {
          keyHash: hashApiKey('second-key-0123456789').toUpperCase().replace('SHA256', 'sha256'),
          user: { id: 'b', roles: ['r'], extra: 1 },
        },
      ]);
      expect(table.lookup('first-key-0123456789').id).to.equal('a');
      expect(table.lookup('second-key-0123456789')).to.deep.equal({ id: 'b', roles: ['r'], extra: 1 });
      expect(() => table.lookup('third-key-0123456789')).to.throw(CredentialRejected, 'unknown key');
      expect(table.plainCount).to.equal(1);
    });

    it('hands out copies: a caller cannot change the configured user', () => {
      const table = new ApiKeyTable([{ key: 'first-key-0123456789', user: { id: 'a', roles: ['member'] } }]);
      table.lookup('first-key-0123456789').roles.push('admin');
      expect(table.lookup('first-key-0123456789').roles).to.deep.equal(['member']);
    });
  });

  describe('MemorySessionStore', () => {
    it('expires sessions by its clock and sweeps them lazily', async () => {
      let now = 1_000_000;
      const store = new MemorySessionStore(() => now);
      await store.put('a', { user: { id: 'u', roles: [] }, createdAt: now, expiresAt: now + 1000 });
      await store.put('b', { user: { id: 'u', roles: [] }, createdAt: now, expiresAt: now + 120_000 });
      expect(await store.get('a')).to.not.equal(undefined);
      now += 1000;
      expect(await store.get('a')).to.equal(undefined);
      now += 60_000;
      await store.put('c', { user: { id: 'v', roles: [] }, createdAt: now, expiresAt: now + 1000 });
      expect(await store.deleteUser('u')).to.equal(1);
      expect(await store.delete('c')).to.equal(true);
      expect(await store.delete('c')).to.equal(false);
    });

    it('is one store per instance', async () => {
      const one = new SessionManager(new MemorySessionStore(), 60);
      const two = new SessionManager(new MemorySessionStore(), 60);
      const session = await one.create({ id: 'u', roles: [] });
      expect(await one.get(session.id)).to.not.equal(undefined);
      expect(await two.get(session.id)).to.equal(undefined);
      expect(await one.get('not a session id')).to.equal(undefined);
    });
  });

  it('reads the session_id cookie among others', () => {
    expect(readSessionCookie('a=1; session_id=abc; b=2')).to.equal('abc');
    expect(readSessionCookie('session_id="abc"')).to.equal('abc');
    expect(readSessionCookie('xsession_id=abc')).to.equal(undefined);
    expect(readSessionCookie(undefined)).to.equal(undefined);
  });
});
