/** The little of @sap/cds's API the bench's CAP server uses (@sap/cds ships no types of its own). */
declare module '@sap/cds' {
  import type { Server } from 'node:http';

  interface DatabaseService {
    run(query: unknown): Promise<unknown>;
    tx<T>(fn: (tx: DatabaseService) => Promise<T>): Promise<T>;
  }
  interface ApplicationService {
    before(event: string, entity: string, handler: (req: { data: Record<string, unknown> }) => void): void;
  }
  interface Cds {
    version: string;
    env: Record<string, unknown>;
    load(files: string | string[]): Promise<unknown>;
    connect: { to(name: string): Promise<DatabaseService> };
    deploy(csn: unknown): { to(db: DatabaseService): Promise<unknown> };
    server(options: { from?: string | string[]; port?: number; app?: unknown }): Promise<Server>;
    on(event: 'served', handler: (services: Record<string, ApplicationService>) => void): void;
    ql: { INSERT: { into(entity: string): { entries(rows: unknown[]): unknown } } };
    utils: { uuid(): string };
  }
  const cds: Cds;
  export default cds;
}
