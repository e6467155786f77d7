/**
 * The Redis outage tests' names for the shared fault proxy (test/helpers/fault-proxy.ts): freeze
 * holds every connection, old and new, silent; thaw answers again on new connections and closes
 * those held.
 */
import { FaultProxy } from '../../helpers/fault-proxy';

export { closedPort, until } from '../../helpers/fault-proxy';

export class Relay extends FaultProxy {
  static override to(url: string): Relay {
    const { hostname, port } = new URL(url);
    return new Relay({ host: hostname, port: Number(port || 6379) });
  }

  freeze(): void {
    this.blackHole();
  }

  thaw(): void {
    this.restore();
    this.close();
  }
}
