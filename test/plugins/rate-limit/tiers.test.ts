/** Which tier a caller is in, and which key it is counted under. */
import { expect } from 'chai';
import { addressKey, callerKey } from '../../../plugins/rate-limit/caller-key';
import { tierOf } from '../../../plugins/rate-limit/tiers';

describe('rate-limit tiers and keys', () => {
  const rule = { roles: ['premium', 'vip'], claim: { name: 'plan', value: 'gold' } };

  it('puts no user in anonymous, a premium role or claim in premium, anyone else in authenticated', () => {
    expect(tierOf(undefined, rule)).to.equal('anonymous');
    expect(tierOf({ id: 'a', roles: [] }, rule)).to.equal('authenticated');
    expect(tierOf({ id: 'a', roles: ['member', 'vip'] }, rule)).to.equal('premium');
    expect(tierOf({ id: 'a', roles: ['member'], plan: 'gold' }, rule)).to.equal('premium');
    expect(tierOf({ id: 'a', roles: ['member'], plan: 'silver' }, rule)).to.equal('authenticated');
    expect(tierOf({ id: 'a', roles: ['member'], plan: ['gold'] }, rule), 'equality, not membership').to.equal('authenticated');
    expect(tierOf({ id: 'a', roles: ['premium'] }, { roles: [] }), 'no premium roles').to.equal('authenticated');
    expect(tierOf({ id: 'a', roles: [], tier: 1 }, { roles: [], claim: { name: 'tier', value: 1 } })).to.equal('premium');
    expect(tierOf({ id: 'a', roles: [], tier: '1' }, { roles: [], claim: { name: 'tier', value: 1 } }), 'strict equality').to.equal(
      'authenticated',
    );
  });

  it('counts a user by id and an anonymous caller by address', () => {
    expect(callerKey({ id: 'alice', roles: [] }, '10.0.0.1')).to.equal('user:alice');
    expect(callerKey(undefined, '10.0.0.1')).to.equal('ip:10.0.0.1');
    expect(callerKey(undefined, undefined)).to.equal('ip:unknown');
  });

  it('counts an IPv4-mapped address as IPv4 and other IPv6 addresses by their /64', () => {
    expect(addressKey('127.0.0.1')).to.equal('127.0.0.1');
    expect(addressKey('::ffff:192.0.2.7')).to.equal('192.0.2.7');
    expect(addressKey('::FFFF:192.0.2.7')).to.equal('192.0.2.7');
    expect(addressKey('2001:db8:0:1:aaaa::1')).to.equal('2001:db8:0:1::/64');
    expect(addressKey('2001:0db8:0000:0001:bbbb:cccc:dddd:eeee')).to.equal('2001:db8:0:1::/64');
    expect(addressKey('2001:db8::1')).to.equal('2001:db8:0:0::/64');
    expect(addressKey('::1')).to.equal('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).to.equal('fe80:0:0:0::/64');
    expect(addressKey('64:ff9b::192.0.2.7')).to.equal('64:ff9b:0:0::/64');
  });
});
