/**
 * Route prefixes in the config (spec: "Route prefixes", "Versioning"): the defaults, trailing
 * slashes, and invalid prefixes, refused when the config is resolved. Served by the built-in
 * protocols: test/server/routes.test.ts.
 */
import { expect } from 'chai';
import { ConfigError, DEFAULT_ROUTES, Kernel, resolveConfig, type ObjectQLConfig } from '../../kernel';

const SPEC_DEFAULTS = { rpc: '/api/objectql', data: '/api/data', metadata: '/api/metadata', files: '/api/files' };

describe('route prefixes in the config', () => {
  it("default to the spec's", () => {
    expect(DEFAULT_ROUTES).to.deep.equal(SPEC_DEFAULTS);
    expect(resolveConfig({}).routes).to.deep.equal(SPEC_DEFAULTS);
    expect(new Kernel({ metadata: [], datasources: {} }).config.routes).to.deep.equal(SPEC_DEFAULTS);
  });

  describe('trailing slashes', () => {
    it('are removed when the config is resolved; a bare "/" is no prefix and is refused', () => {
      const { routes } = resolveConfig({ routes: { rpc: '/v1/rpc/', data: '/v1/data///', metadata: '/v1/meta', files: '/v1/files' } });
      expect(routes).to.deep.equal({ rpc: '/v1/rpc', data: '/v1/data', metadata: '/v1/meta', files: '/v1/files' });
      expect(() => resolveConfig({ routes: { metadata: '/' } })).to.throw(ConfigError, 'routes.metadata');
    });
  });

  describe('invalid prefixes', () => {
    const invalid: unknown[] = ['api/data', '', '/with space', '/a?b=1', '/a#frag', 5, null, ['/x']];

    it('are rejected when the config is resolved, naming the key', () => {
      for (const key of ['rpc', 'data', 'metadata', 'files']) {
        for (const value of invalid) {
          const config = { routes: { [key]: value } } as ObjectQLConfig;
          const label = `${key}: ${JSON.stringify(value)}`;
          expect(() => resolveConfig(config), label).to.throw(ConfigError, `- routes.${key}:`);
          expect(() => new Kernel(config), label).to.throw(ConfigError, `routes.${key}`);
        }
      }
      expect(() => new Kernel({ routes: { rpc: '/ok', data: 'bad' } }))
        .to.throw(ConfigError, 'routes.data')
        .with.property('message')
        .that.does.not.include('routes.rpc');
    });

    it('reject an unknown route key by name', () => {
      expect(() => resolveConfig({ routes: { graphql: '/gql' } })).to.throw(ConfigError, "'graphql'");
    });

    it('also reject "//" and express path syntax (( ) * : { }) at config time', () => {
      for (const bad of ['//', '/', '/a//b', '/a/(x)', '/a/*', '/a/:tenant', '/a/{b}', '/a b']) {
        expect(() => resolveConfig({ routes: { rpc: bad } }), bad).to.throw(ConfigError, 'routes.rpc');
      }
      expect(resolveConfig({ routes: { rpc: '/v1.2/rpc_x-y~z/' } }).routes.rpc).to.equal('/v1.2/rpc_x-y~z');
    });
  });
});
