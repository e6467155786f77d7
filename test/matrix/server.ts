/**
 * The matrix's server: the sample application plus fixtures/, on a given datasource, with the
 * plugins every adapter needs; the client adapters send requests through (credentials added by
 * credentials.ts); and the store as the truth — read without permissions, captured and put back
 * after every write so that each case starts from the seeded records. The seed includes files:
 * once started, root uploads one per record and attachment field of FILE_OBJECT and attaches it
 * (files.ts), before the baseline is captured.
 */
import { expect } from 'chai';
import { Agent, request as httpRequest } from 'node:http';
import { resolve } from 'node:path';
import type { Datasource, DatasourceConfig, DbRecord, Kernel } from '../../kernel';
import { SAMPLE_METADATA, startServer, type TestServer } from '../helpers/server';
import { credentials, identityServer } from './credentials';
import { filesApi, lostFiles } from './files';
import type { Client, ProtocolAdapter, Rec } from './protocol';
import { FILE_OBJECT } from './table';

export const FIXTURES = resolve(__dirname, 'fixtures');

/** The datasources the matrix runs on. */
export const DATASOURCES: Record<string, Record<string, DatasourceConfig>> = {
  'SQLite (:memory:)': { default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: ':memory:' } } },
  memory: { default: { driver: 'memory' } },
};

/** The transports of change notifications: GraphQL subscriptions (graphql-ws) and the realtime WebSocket API. */
const CHANGE_PLUGINS = { graphql: true, realtime: {} };

/** The File API (file-cases.ts), its contents kept in memory. */
const FILE_PLUGINS = { files: { storage: { type: 'memory' } } };

type Snapshot = Map<string, DbRecord[]>;

/** The matrix runs with the spec's default prefixes. */
const DEFAULT_ROUTES = { rpc: '/api/objectql', data: '/api/data', metadata: '/api/metadata', files: '/api/files' };

export class MatrixServer {
  private server?: TestServer;
  private starting?: Promise<void>;
  private baseline?: Snapshot;
  private labels = new Map<string, { label: string; description?: string }>();

  /** Keep-alive connections: the matrix sends a few thousand requests per datasource. */
  private agent = new Agent({ keepAlive: true });

  constructor(
    private readonly datasources: Record<string, DatasourceConfig>,
    private readonly adapters: ProtocolAdapter[],
  ) {}

  /** Stable across start/stop: adapters bind to it when the tests are declared. */
  readonly client: Client = {
    request: (user, method, path, body, headers = {}) => this.send(method, path, body, { ...credentials(user), ...headers }),
    routes: DEFAULT_ROUTES,
    definition: (object) => this.kernel.registry.object(object),
  };

  /** The File API of the running server (uploads, byte-exact downloads, seeding). */
  readonly files = filesApi(() => this.url, this.client);

  private send(
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers }> {
    const url = new URL(path, this.running.url);
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const all: Record<string, string> = {
      ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}),
      ...headers,
    };
    return new Promise((resolvePromise, reject) => {
      const req = httpRequest(url, { method, headers: all, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            /* not JSON: keep the text */
          }
          const out = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out.set(k, Array.isArray(v) ? v.join(', ') : v);
          resolvePromise({ status: res.statusCode ?? 0, body: parsed, headers: out });
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** The server's base URL (http://host:port), for the WebSocket transports. */
  get url(): string {
    return this.running.url;
  }

  get kernel(): Kernel {
    return this.running.kernel;
  }

  private get running(): TestServer {
    if (!this.server) throw new Error('the matrix server is not running');
    return this.server;
  }

  /**
   * Starts the server. A start slower than mocha's hook timeout goes on after the hook failed:
   * stop() waits for it, so the server it makes is stopped too, not left to hold the process open.
   */
  start(): Promise<void> {
    this.starting = this.startServer();
    return this.starting;
  }

  private async startServer(): Promise<void> {
    // graphql (its subscriptions) and realtime carry the change notifications (change-cases.ts).
    const plugins = Object.assign({}, identityServer.config.plugins, CHANGE_PLUGINS, FILE_PLUGINS, ...this.adapters.map((a) => a.plugins));
    this.server = await startServer(
      { ...identityServer.config, metadata: [SAMPLE_METADATA, FIXTURES], datasources: this.datasources, plugins },
      identityServer.options,
    );
    expect(this.server.kernel.config.routes).to.deep.equal(DEFAULT_ROUTES);
    await this.files.seed([...(await this.truth(FILE_OBJECT)).keys()]);
    this.baseline = await this.capture();
    this.labels = new Map(this.kernel.registry.objects().map((d) => [d.name, { label: d.label, description: d.description }]));
  }

  async stop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    this.agent.destroy();
    this.agent = new Agent({ keepAlive: true });
    await this.server?.stop();
    this.server = undefined;
  }

  /** Every field name of an object (system fields included). */
  fields(object: string): string[] {
    return Object.keys(this.kernel.registry.object(object)!.fields);
  }

  /** The relation fields of an object and their targets. */
  relations(object: string): Array<{ field: string; target: string }> {
    return Object.values(this.kernel.registry.object(object)!.fields)
      .filter((f) => f.type === 'lookup' || f.type === 'master_detail')
      .map((f) => ({ field: f.name, target: f.reference_to! }));
  }

  /** The records of an object as the engine returns them to an unrestricted caller, by id. */
  async truth(object: string): Promise<Map<string, Rec>> {
    const { items } = await this.kernel.engine.repo(object, { system: true }).find({ sort: 'id', top: 1000 });
    return new Map(items.map((r) => [r.id as string, JSON.parse(JSON.stringify(r)) as Rec]));
  }

  /** The datasource an object's records live in, for reading and writing them without the engine. */
  private datasource(object: string): Datasource {
    return this.kernel.resolve('datasources').get(this.kernel.registry.object(object)!.datasource);
  }

  /** Every stored record of every object, straight from the datasources. */
  async capture(): Promise<Snapshot> {
    const out: Snapshot = new Map();
    for (const def of this.kernel.registry.objects()) {
      const rows = await this.datasource(def.name).find(def.name, {});
      out.set(
        def.name,
        rows.sort((a, b) => String(a.id).localeCompare(String(b.id))),
      );
    }
    return out;
  }

  /** Asserts the store is exactly as `before` (a denied request changed nothing). */
  async expectUnchanged(before: Snapshot, what: string): Promise<void> {
    const after = await this.capture();
    for (const [object, rows] of before) expect(after.get(object), `${what}: ${object} changed`).to.deep.equal(rows);
  }

  /**
   * Puts the store back to the seeded records (and the object labels back), without hooks or
   * checks. A record of FILE_OBJECT that was deleted or had its files replaced made the files
   * plugin delete those files: they are uploaded and attached again (new ids) and the baseline
   * taken anew.
   */
  async reset(): Promise<void> {
    const baseline = this.baseline!;
    const now = await this.capture();
    const lost = lostFiles(baseline.get(FILE_OBJECT) ?? [], now.get(FILE_OBJECT) ?? []);
    for (const [object, rows] of baseline) {
      const ds = this.datasource(object);
      const current = new Map((now.get(object) ?? []).map((r) => [r.id as string, r]));
      const wanted = new Set(rows.map((r) => r.id as string));
      for (const id of current.keys()) if (!wanted.has(id)) await ds.delete(object, id);
      for (const row of rows) {
        const have = current.get(row.id as string);
        if (!have) await ds.create(object, { ...row });
        else if (JSON.stringify(have) !== JSON.stringify(row)) {
          const { id, ...rest } = row;
          await ds.update(object, id as string, rest);
        }
      }
    }
    for (const def of this.kernel.registry.objects()) {
      const seeded = this.labels.get(def.name)!;
      if (def.label !== seeded.label) this.kernel.registry.setObjectInfo(def.name, { label: seeded.label });
      if (def.description !== seeded.description) this.kernel.registry.setObjectInfo(def.name, { description: seeded.description ?? '' });
    }
    if (lost.length) {
      await this.files.seed(lost);
      this.baseline = await this.capture();
    }
  }
}
