/**
 * Config `tracing`: OpenTelemetry spans through @opentelemetry/api, recorded by the real SDK
 * (NodeTracerProvider with an in-memory exporter) as an application would register it: a server
 * span per request, named by its route pattern and continuing the caller's traceparent; an engine
 * span per operation inside it (a POST's body read included); a span per SQL statement inside
 * that. Off, nothing is recorded.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { identityHeader, startServer, type TestServer } from '../helpers/server';

const ADMIN = identityHeader({ id: 'root', roles: ['admin'] });

describe('tracing: OpenTelemetry spans of requests, engine operations and SQL statements', function () {
  this.timeout(20_000);
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let dir: string;
  let server: TestServer;

  before(async () => {
    provider.register();
    dir = mkdtempSync(join(tmpdir(), 'objectql-tracing-'));
    server = await startServer(
      {
        tracing: true,
        datasources: { default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: join(dir, 'db.sqlite') } } },
        plugins: { rest: true, rpc: true },
        security: { adminRoles: ['admin'] },
      },
      { identityFromHeader: true },
    );
  });
  after(async () => {
    await server?.stop();
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => exporter.reset());

  const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
  /** The spans once the request's own has ended (it ends when the response has closed). */
  const spans = async () => {
    for (let i = 0; i < 50 && !exporter.getFinishedSpans().some((s) => s.kind === SpanKind.SERVER); i++)
      await new Promise((r) => setTimeout(r, 10));
    return exporter.getFinishedSpans();
  };

  it('a REST list: request ⊃ engine find ⊃ the SQL statements, named by route, object and table', async () => {
    expect((await server.request('GET', '/api/data/project?top=2', undefined, ADMIN)).status).to.equal(200);
    const all = await spans();
    const request = all.find((s) => s.kind === SpanKind.SERVER)!;
    expect(request.name).to.equal('GET /api/data/:object');
    expect(request.attributes).to.include({ 'http.route': '/api/data/:object', 'http.response.status_code': 200 });
    const find = all.find((s) => s.name === 'objectql.find project')!;
    expect(parentOf(find)).to.equal(request.spanContext().spanId);
    expect(find.attributes).to.include({ 'objectql.object': 'project', 'objectql.operation': 'find' });
    const statements = all.filter((s) => parentOf(s) === find.spanContext().spanId).map((s) => s.name);
    expect(statements).to.include.members(['find project', 'count project']);
    const select = all.find((s) => s.name === 'find project')!;
    expect(select.attributes).to.include({ 'db.system.name': 'sqlite', 'db.collection.name': 'project', 'db.operation.name': 'find' });
    expect(new Set(all.map((s) => s.spanContext().traceId)).size).to.equal(1);
  });

  it("a JSON-RPC call: the engine span stays inside the request across the body read; a refusal is the span's status", async () => {
    const counted = await server.rpc({ op: 'count', object: 'project' }, ADMIN);
    expect(counted.status).to.equal(200);
    let all = await spans();
    const request = all.find((s) => s.kind === SpanKind.SERVER)!;
    expect(request.name).to.equal('POST /api/objectql');
    expect(parentOf(all.find((s) => s.name === 'objectql.count project')!)).to.equal(request.spanContext().spanId);

    exporter.reset();
    const refused = await server.rpc({ op: 'create', object: 'project', args: {} }, ADMIN);
    expect(refused.status).to.equal(400);
    all = await spans();
    const create = all.find((s) => s.name === 'objectql.create project')!;
    expect(create.status.message).to.equal(refused.body.error.code);
  });

  it("continues the caller's trace from its traceparent header", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    await server.request('GET', '/api/data/project', undefined, { ...ADMIN, traceparent: `00-${traceId}-${parentId}-01` });
    const request = (await spans()).find((s) => s.kind === SpanKind.SERVER)!;
    expect(request.spanContext().traceId).to.equal(traceId);
    expect(parentOf(request)).to.equal(parentId);
  });

  it('records nothing for an instance with tracing off (the default)', async () => {
    const quiet = await startServer({ plugins: { rest: true } }, { identityFromHeader: true });
    try {
      await quiet.request('GET', '/api/data/project', undefined, ADMIN);
      await new Promise((r) => setTimeout(r, 50));
      expect(exporter.getFinishedSpans()).to.deep.equal([]);
    } finally {
      await quiet.stop();
    }
  });
});
