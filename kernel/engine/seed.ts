import type { Logger } from 'pino';
import type { MetadataRegistry } from '../metadata/registry';
import type { Engine } from './engine';

/**
 * Loads `<object>.data.yml` records into objects whose storage is empty, once. Objects are seeded
 * so that referenced objects come first; records go through the engine (validation, defaults,
 * hooks) as the system.
 */
export async function seedInitialData(engine: Engine, registry: MetadataRegistry, logger: Logger): Promise<void> {
  const order = referenceOrder(registry);
  for (const name of order) {
    const records = registry.initialData(name);
    if (records.length === 0) continue;
    const repo = engine.repo(name, { system: true });
    if ((await repo.count()) > 0) continue;
    for (const [i, record] of records.entries()) {
      try {
        await repo.create(record);
      } catch (err) {
        throw new Error(
          `Initial data for '${name}' (record ${i + 1}${record.id ? `, id ${typeof record.id === 'string' ? record.id : JSON.stringify(record.id)}` : ''}) was rejected: ${(err as Error).message}`,
          { cause: err },
        );
      }
    }
    logger.info({ object: name, records: records.length }, 'initial data loaded');
  }
}

function referenceOrder(registry: MetadataRegistry): string[] {
  const done = new Set<string>();
  const order: string[] = [];
  const visit = (name: string, trail: Set<string>) => {
    if (done.has(name) || trail.has(name)) return;
    trail.add(name);
    const def = registry.object(name);
    for (const f of Object.values(def?.fields ?? {})) if (f.reference_to && f.reference_to !== name) visit(f.reference_to, trail);
    done.add(name);
    order.push(name);
  };
  for (const o of registry.objects()) visit(o.name, new Set());
  return order;
}
