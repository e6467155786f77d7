/** The kernel's pubsub service and WebSocket upgrade routing, on kernels without plugins. */
import { expect } from 'chai';
import WebSocket from 'ws';
import { Kernel } from '../../kernel';
import { startBareKernel, type BareKernel } from './bare-kernel';

describe('kernel pubsub', () => {
  const servers: BareKernel[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });

  it('keeps two kernels apart, and ends a subscription when asked', async () => {
    // The service exists from construction on: no start needed.
    const [a, b] = [new Kernel({ metadata: [], datasources: {} }), new Kernel({ metadata: [], datasources: {} })];
    const heardA: unknown[] = [];
    const heardB: unknown[] = [];
    const endA = await a.resolve('pubsub').subscribe('ch', (m) => heardA.push(m));
    await b.resolve('pubsub').subscribe('ch', (m) => heardB.push(m));
    await a.resolve('pubsub').publish('ch', { n: 1 });
    await endA();
    await a.resolve('pubsub').publish('ch', { n: 2 });
    expect(heardA).to.deep.equal([{ n: 1 }]);
    expect(heardB).to.deep.equal([]);
  });

  it('refuses a WebSocket upgrade to a path nobody serves with 404', async () => {
    const s = await startBareKernel();
    servers.push(s);
    const ws = new WebSocket(`${s.url.replace('http', 'ws')}/nowhere`);
    const status = await new Promise<number | undefined>((resolve) => {
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode));
      ws.on('error', () => resolve(undefined));
    });
    expect(status).to.equal(404);
  });
});
