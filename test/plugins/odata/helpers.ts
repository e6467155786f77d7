/**
 * Shared by the OData tests (and the permission matrix's OData adapter): a server with the odata
 * plugin, requests as a user, the $metadata document read with a real XML parser, and the error
 * checks.
 */
import { expect } from 'chai';
import { XMLParser } from 'fast-xml-parser';
import type { DatasourceConfig, ObjectQLConfig } from '../../../kernel';
import { openNamespace, requireDialect, type Namespace } from '../../drivers/sql/helpers';
import { identityHeader, startServer, USERS, type TestServer } from '../../helpers/server';

export type Res = { status: number; body: any; headers: Headers };
export type Caller = { id: string; roles: string[] } | null;

export const BASE = '/odata';

/** A server with the odata plugin (options as given) and rpc, identity from X-Test-User; `config` adds to (and may override) that. */
export function startODataServer(options: Record<string, unknown> = {}, config: ObjectQLConfig = {}): Promise<TestServer> {
  return startServer({ ...config, plugins: { rpc: true, odata: options, ...config.plugins } }, { identityFromHeader: true });
}

export const SQLITE: DatasourceConfig = { driver: 'sql', client: 'better-sqlite3', connection: { filename: ':memory:' } };

/**
 * `body` once on SQLite (:memory:) and once on PostgreSQL (a schema of its own, dropped after;
 * skipped with a reason when PostgreSQL is unreachable, unless REQUIRE_SERVICES names it), each
 * with a server of its own started before the tests.
 */
export function describeOnDatabases(
  title: string,
  body: (server: () => TestServer) => void,
  options: Record<string, unknown> = {},
  config: ObjectQLConfig = {},
): void {
  for (const label of ['SQLite', 'PostgreSQL'] as const) {
    describe(`${title} (${label})`, function () {
      let s: TestServer | undefined;
      let ns: Namespace | undefined;
      before(async function () {
        let datasource = SQLITE;
        if (label === 'PostgreSQL') {
          await requireDialect(this, 'postgres');
          ns = await openNamespace('postgres');
          datasource = ns.config();
        }
        s = await startODataServer(options, { ...config, datasources: { default: datasource } });
      });
      after(async () => {
        await s?.stop();
        await ns?.drop();
      });
      body(() => {
        if (!s) throw new Error('the server is not running');
        return s;
      });
    });
  }
}

/** One request under the base path as `user` (carol unless given; null = anonymous). */
export function od(
  s: TestServer,
  method: string,
  path: string,
  body?: unknown,
  user: Caller = USERS.carol,
  headers: Record<string, string> = {},
): Promise<Res> {
  return s.request(method, BASE + path, body, { ...identityHeader(user), ...headers });
}

/** GET with query options given as pairs (encoded here). */
export function query(
  s: TestServer,
  path: string,
  params: Record<string, string>,
  user: Caller = USERS.carol,
  headers: Record<string, string> = {},
): Promise<Res> {
  const qs = new URLSearchParams(params).toString();
  return od(s, 'GET', `${path}${qs ? `?${qs}` : ''}`, undefined, user, headers);
}

/** A success with the given status (200 unless said); returns the body. */
export function ok(res: Res, status = 200): any {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  if (res.body && typeof res.body === 'object') expect(res.body).not.to.have.property('error');
  expect(res.headers.get('odata-version')).to.equal('4.0');
  return res.body;
}

/**
 * An OData error: the status, `{error: {code, message, details: [...]}}` and nothing else, the
 * message naming each of `named`; returns the error object.
 */
export function expectODataError(res: Res, status: number, code: string, ...named: string[]): any {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.headers.get('odata-version'), 'OData-Version').to.equal('4.0');
  expect(res.headers.get('content-type')).to.match(/^application\/json/);
  expect(Object.keys(res.body)).to.deep.equal(['error']);
  const error = res.body.error;
  expect(error.code).to.equal(code);
  expect(error.message).to.be.a('string');
  expect(error.details, 'details is an array').to.be.an('array');
  for (const d of error.details) {
    expect(d.code).to.be.a('string');
    expect(d.message).to.be.a('string');
    if ('target' in d) expect(d.target).to.be.a('string');
  }
  for (const name of named) expect(error.message).to.include(name);
  expect(JSON.stringify(res.body)).not.to.match(/\bat .+\.(ts|js):\d+/, 'no stack trace in the body');
  return error;
}

export interface EdmProperty {
  type: string;
  nullable: boolean;
  /** Annotated Core.MediaType application/json: the value is JSON text. */
  json: boolean;
  maxLength?: number;
  precision?: number;
}

export interface EdmNavigation {
  type: string;
  nullable: boolean;
  partner?: string;
  /** The ReferentialConstraint: the foreign key property and the target's property it refers to. */
  constraint?: { property: string; referenced: string };
}

export interface EdmEntityType {
  key: string[];
  properties: Record<string, EdmProperty>;
  navigations: Record<string, EdmNavigation>;
  annotations: Record<string, string>;
}

export interface Edm {
  version: string;
  namespace: string;
  types: Record<string, EdmEntityType>;
  container: string;
  sets: Record<string, { entityType: string; bindings: Record<string, string> }>;
  /** The schema's Annotations elements by target, each term's Annotation element as parsed. */
  annotations: Record<string, Record<string, any>>;
}

const LISTS = new Set([
  'edmx:Reference',
  'edmx:Include',
  'Schema',
  'EntityType',
  'Property',
  'NavigationProperty',
  'PropertyRef',
  'EntitySet',
  'NavigationPropertyBinding',
  'Annotation',
  'EntityContainer',
  'Annotations',
  'ReferentialConstraint',
]);

/** A CSDL XML document, parsed with fast-xml-parser (which rejects what is not well-formed XML). */
export function parseEdmx(xml: string): Edm {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    isArray: (name, _path, _leaf, isAttribute) => !isAttribute && LISTS.has(name),
  });
  const doc = parser.parse(xml, true);
  const edmx = doc['edmx:Edmx'];
  expect(edmx, 'edmx:Edmx root').to.be.an('object');
  expect(edmx['xmlns:edmx']).to.equal('http://docs.oasis-open.org/odata/ns/edmx');
  const schemas = edmx['edmx:DataServices'].Schema;
  expect(schemas, 'one Schema').to.have.length(1);
  const schema = schemas[0];
  expect(schema.xmlns).to.equal('http://docs.oasis-open.org/odata/ns/edm');
  const notes = (x: any) => Object.fromEntries((x.Annotation ?? []).map((a: any) => [a.Term, a.String]));
  const types: Record<string, EdmEntityType> = {};
  for (const t of schema.EntityType ?? []) {
    types[t.Name] = {
      key: t.Key.PropertyRef.map((r: any) => r.Name),
      properties: Object.fromEntries(
        (t.Property ?? []).map((p: any) => [
          p.Name,
          {
            type: p.Type,
            nullable: p.Nullable !== 'false',
            json: notes(p)['Core.MediaType'] === 'application/json',
            ...(p.MaxLength ? { maxLength: Number(p.MaxLength) } : {}),
            ...(p.Precision ? { precision: Number(p.Precision) } : {}),
          },
        ]),
      ),
      navigations: Object.fromEntries(
        (t.NavigationProperty ?? []).map((n: any) => {
          const nav: EdmNavigation = { type: n.Type, nullable: n.Nullable !== 'false' };
          if (n.Partner) nav.partner = n.Partner;
          for (const c of n.ReferentialConstraint ?? []) nav.constraint = { property: c.Property, referenced: c.ReferencedProperty };
          return [n.Name, nav];
        }),
      ),
      annotations: notes(t),
    };
  }
  const container = schema.EntityContainer[0];
  const sets: Edm['sets'] = {};
  for (const set of container.EntitySet ?? []) {
    sets[set.Name] = {
      entityType: set.EntityType,
      bindings: Object.fromEntries((set.NavigationPropertyBinding ?? []).map((b: any) => [b.Path, b.Target])),
    };
  }
  const annotations: Edm['annotations'] = {};
  for (const group of schema.Annotations ?? [])
    annotations[group.Target] = Object.fromEntries((group.Annotation ?? []).map((a: any) => [a.Term, a]));
  return { version: edmx.Version, namespace: schema.Namespace, types, container: container.Name, sets, annotations };
}

/** An entity without its control information (@odata.*), expanded entities included. */
export function plain(entity: any): any {
  if (Array.isArray(entity)) return entity.map(plain);
  if (!entity || typeof entity !== 'object') return entity;
  return Object.fromEntries(
    Object.entries(entity)
      .filter(([k]) => !k.includes('@'))
      .map(([k, v]) => [k, plain(v)]),
  );
}

/** A quoted key: Set('it''s'). */
export function key(id: string): string {
  return `('${encodeURIComponent(id.replace(/'/g, "''"))}')`;
}
