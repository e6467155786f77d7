import type { Logger } from 'pino';
import type { Datasource, DatasourceConfig, DriverFactory } from './drivers';
import type { ObjectDefinition } from './metadata/types';
import { PluginError } from './plugin-order';

/** The configured datasources of one kernel, by name. */
export class DatasourceManager {
  private readonly open_ = new Map<string, Datasource>();

  constructor(
    private readonly drivers: ReadonlyMap<string, DriverFactory>,
    private readonly logger: Logger,
    private readonly baseDir: string,
    private readonly tracing = false,
  ) {}

  /** Creates, connects and syncs every configured datasource with the objects stored in it. */
  async open(configs: Record<string, DatasourceConfig>, objects: ObjectDefinition[]): Promise<void> {
    for (const object of objects) {
      if (!configs[object.datasource]) {
        throw new PluginError(
          `Object '${object.name}'${object.source ? ` (${object.source})` : ''} uses datasource '${object.datasource}', which is not configured; configured: ${Object.keys(configs).join(', ')}`,
        );
      }
    }
    for (const [name, config] of Object.entries(configs)) {
      const factory = this.drivers.get(config.driver);
      if (!factory) {
        throw new PluginError(
          `Datasource '${name}' uses driver '${config.driver}', which no plugin provides; known drivers: ${[...this.drivers.keys()].join(', ') || 'none'}`,
        );
      }
      const ds = factory(name, config, { logger: this.logger.child({ datasource: name }), baseDir: this.baseDir, tracing: this.tracing });
      await ds.connect();
      this.open_.set(name, ds);
      await ds.syncSchema(objects.filter((o) => o.datasource === name));
    }
  }

  get(name: string): Datasource {
    const ds = this.open_.get(name);
    if (!ds) throw new PluginError(`Datasource '${name}' is not open`);
    return ds;
  }

  names(): string[] {
    return [...this.open_.keys()];
  }

  async close(): Promise<void> {
    const all = [...this.open_.values()];
    this.open_.clear();
    await Promise.all(all.map((ds) => ds.disconnect()));
  }
}
