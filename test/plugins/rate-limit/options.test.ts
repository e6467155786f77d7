/** The plugin's options: spec defaults, overrides, and errors that name the option. */
import { expect } from 'chai';
import { createKernel, PluginError } from '../../../server';
import rateLimit, { SPEC_TIERS } from '../../../plugins/rate-limit';
import { parseOptions } from '../../../plugins/rate-limit/options';

describe('rate-limit options', () => {
  it('defaults to the spec tiers, the premium role and the memory store', () => {
    const s = parseOptions({});
    expect(s.tiers).to.deep.equal({
      anonymous: { perMinute: 20, perHour: 100 },
      authenticated: { perMinute: 100, perHour: 1000 },
      premium: { perMinute: 500, perHour: 10000 },
    });
    expect(s.tiers).to.deep.equal(SPEC_TIERS);
    expect(s.premium).to.deep.equal({ roles: ['premium'] });
    expect(s.store).to.deep.equal({ type: 'memory' });
    expect(parseOptions(undefined)).to.deep.equal(s);
  });

  it('overrides any limit of any tier, keeping the others', () => {
    const s = parseOptions({ tiers: { anonymous: { perMinute: 5 }, premium: { perHour: 50000 } } });
    expect(s.tiers.anonymous).to.deep.equal({ perMinute: 5, perHour: 100 });
    expect(s.tiers.authenticated).to.deep.equal({ perMinute: 100, perHour: 1000 });
    expect(s.tiers.premium).to.deep.equal({ perMinute: 500, perHour: 50000 });
  });

  it('takes premium roles and a premium claim, and a Redis store with a default key prefix', () => {
    const s = parseOptions({
      premium: { roles: ['vip'], claim: { name: 'plan', value: 'gold' } },
      store: { redis: { url: 'redis://127.0.0.1:6379' } },
    });
    expect(s.premium).to.deep.equal({ roles: ['vip'], claim: { name: 'plan', value: 'gold' } });
    expect(s.store).to.deep.equal({ type: 'redis', url: 'redis://127.0.0.1:6379', keyPrefix: 'objectql:rate-limit' });
    expect(parseOptions({ store: { redis: { url: 'rediss://h:1/2', keyPrefix: 'app1' } } }).store).to.deep.include({ keyPrefix: 'app1' });
  });

  const bad: Array<[string, unknown, RegExp]> = [
    [
      'a negative limit',
      { tiers: { anonymous: { perMinute: -1 } } },
      /tiers\.anonymous\.perMinute:? must be a whole number of requests, at least 1/,
    ],
    ['a fractional limit', { tiers: { premium: { perHour: 1.5 } } }, /tiers\.premium\.perHour:? must be a whole number/],
    ['a limit as a string', { tiers: { authenticated: { perHour: '10' } } }, /tiers\.authenticated\.perHour:? must be a whole number/],
    ['an unknown tier', { tiers: { gold: { perMinute: 1 } } }, /unknown option 'tiers\.gold'/],
    ['an unknown key in a tier', { tiers: { anonymous: { perSecond: 1 } } }, /unknown option 'tiers\.anonymous\.perSecond'/],
    ['an unknown top-level option', { trustProxy: true }, /unknown option 'trustProxy'/],
    ['premium roles that are not a list', { premium: { roles: 'vip' } }, /premium\.roles:? must be a list of role names/],
    ['a claim without a value', { premium: { claim: { name: 'plan' } } }, /premium\.claim\.value:? is required/],
    [
      'a claim with an object value',
      { premium: { claim: { name: 'plan', value: {} } } },
      /premium\.claim\.value:? must be a string, number or boolean/,
    ],
    ['an unknown store', { store: 'mongo' }, /store:? must be 'memory' or \{redis: \{url, keyPrefix\?\}\}/],
    [
      'a Redis URL of another scheme',
      { store: { redis: { url: 'http://127.0.0.1:6379' } } },
      /store\.redis\.url:? must be a redis:\/\/ or rediss:\/\/ URL/,
    ],
    ['an empty key prefix', { store: { redis: { url: 'redis://x', keyPrefix: '' } } }, /store\.redis\.keyPrefix:? must not be empty/],
  ];
  for (const [what, options, message] of bad) {
    it(`refuses ${what}, naming the option`, () => {
      expect(() => rateLimit(options as never)).to.throw(PluginError, message);
      expect(() => rateLimit(options as never)).to.throw(/^Plugin 'rate-limit': /);
    });
  }

  it('stops createKernel when the config holds a wrong option', async () => {
    let error: unknown;
    await createKernel({ logLevel: 'silent', plugins: { 'rate-limit': { tiers: { anonymous: { perMinute: 0 } } } } }).catch(
      (err: unknown) => (error = err),
    );
    expect(error).to.be.instanceOf(PluginError);
    expect((error as Error).message).to.match(/tiers\.anonymous\.perMinute/);
  });
});
