import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/schema';
import type { RequestContext } from '../context';
import type { DatasourceManager } from '../datasources';
import type { Datasource } from '../drivers';
import { ObjectQLError } from '../errors';
import type { KernelHooks } from '../hooks';
import type { MetadataRegistry } from '../metadata/registry';
import { relationsOf, type Relation } from '../metadata/relations';
import type { FieldDefinition, ObjectDefinition } from '../metadata/types';
import { ObjectPermissions } from './permissions';
import { ObjectRepository } from './repository';
import { TransactionScope } from './transaction';
import type { DataApi, DataEngine, Limits, Repository } from './types';
import { UnitOfWork } from './unit-of-work';

/** Per-object structures computed once at start-up. */
export interface CompiledObject {
  def: ObjectDefinition;
  fieldNames: ReadonlySet<string>;
  datasource: Datasource;
  permissions: ObjectPermissions;
  relations: FieldDefinition[];
  /** Every relation of the object by name, both directions (kernel/metadata/relations.ts). */
  links: ReadonlyMap<string, Relation>;
  /** Objects holding a master_detail field pointing here: their records go when a master goes. */
  details: Array<{ object: string; field: string }>;
  uniqueFields: FieldDefinition[];
  autoNumbers: FieldDefinition[];
}

export interface EngineDeps {
  registry: MetadataRegistry;
  datasources: DatasourceManager;
  hooks: KernelHooks;
  config: ResolvedConfig;
  logger: Logger;
}

/** The only road to data: every protocol and every hook goes through `repo()`. The kernel's face exports its interface, DataEngine. */
export class Engine implements DataEngine {
  private readonly compiled = new Map<string, CompiledObject>();
  /** The engine.transaction() whose function is running in the current async context, if any. */
  private readonly ambient = new AsyncLocalStorage<TransactionScope>();

  constructor(readonly deps: EngineDeps) {
    const adminRoles = new Set(deps.config.security.adminRoles);
    const objects = deps.registry.objects();
    const links = relationsOf(objects);
    for (const def of objects) {
      const fields = Object.values(def.fields);
      this.compiled.set(def.name, {
        def,
        fieldNames: new Set(Object.keys(def.fields)),
        datasource: deps.datasources.get(def.datasource),
        permissions: new ObjectPermissions(def, adminRoles),
        relations: fields.filter((f) => f.type === 'lookup' || f.type === 'master_detail'),
        links: new Map(links.get(def.name)!.map((r) => [r.name, r])),
        details: objects.flatMap((o) =>
          Object.values(o.fields)
            .filter((f) => f.type === 'master_detail' && f.reference_to === def.name)
            .map((f) => ({ object: o.name, field: f.name })),
        ),
        uniqueFields: fields.filter((f) => f.unique),
        autoNumbers: fields.filter((f) => f.type === 'auto_number'),
      });
    }
  }

  get limits(): Limits {
    return this.deps.config.limits;
  }

  has(object: string): boolean {
    return this.compiled.has(object);
  }

  relations(object: string): Relation[] {
    return [...this.object(object).links.values()];
  }

  object(name: string): CompiledObject {
    const c = typeof name === 'string' ? this.compiled.get(name) : undefined;
    if (!c) throw new ObjectQLError('NOT_FOUND', `Object '${String(name)}' not found`, { object: name });
    return c;
  }

  /**
   * One object as seen by one caller. Unknown objects are NOT_FOUND. Called from inside the
   * function of an `engine.transaction()`, the repository joins that transaction (a write outside
   * it would wait for it on stores with one writer).
   */
  repo(object: string, request: RequestContext = {}): Repository {
    const scope = this.ambient.getStore();
    return new ObjectRepository(this, this.object(object), request, scope?.active ? scope.unit : new UnitOfWork());
  }

  /**
   * Runs `fn` as one unit of work: every write made through `api.repo(x)` — and by the hooks and
   * actions it triggers, and through `engine.repo()` called inside fn — joins it. One transaction
   * per datasource, opened on its first write; reads see the unit's own uncommitted writes (reads
   * of a datasource not written yet see committed data). When fn resolves, all commit and
   * `recordChanged` announces the changes; when fn throws, all roll back, nothing is announced,
   * and the error is rethrown.
   *
   * - A write that fails inside the unit (past its permission and input checks) makes it
   *   rollback-only: even if fn catches the error, the unit rolls back and that first error is
   *   thrown when fn returns. There are no savepoints: a failed write may have left effects (its
   *   hooks' writes) that cannot be undone alone. Bulk operations inside are thus all or nothing.
   * - Nested: engine.transaction() called inside fn (by fn, a hook or an action) joins the outer
   *   unit, acting as its own caller; it commits with the outer one, and its failure dooms it.
   * - Several datasources: committed one by one, the last opened first; atomicity across them is
   *   best-effort (see transaction.ts), as for a single write whose hooks reach another datasource.
   * - Writes inside a single write's hooks that reach another datasource commit on their own, but
   *   inside engine.transaction() they join the unit and commit with it.
   */
  async transaction<T>(request: RequestContext, fn: (api: DataApi) => Promise<T>): Promise<T> {
    const outer = this.ambient.getStore();
    if (outer?.active) {
      try {
        return await fn(this.api(request, outer.unit));
      } catch (err) {
        outer.fail(err);
        throw err;
      }
    }
    const scope = new TransactionScope(this, request);
    let result: T;
    try {
      result = await this.ambient.run(scope, () => fn(this.api(request, scope.unit)));
    } catch (err) {
      await scope.rollback();
      throw err;
    }
    await scope.commit();
    return result;
  }

  /** @internal a repository inside an open unit of work (hooks, actions, cascades). */
  scopedRepo(object: string, request: RequestContext, unit: UnitOfWork): ObjectRepository {
    return new ObjectRepository(this, this.object(object), request, unit);
  }

  /** @internal the `api` handed to hooks and actions: same caller, same transactions. */
  api(request: RequestContext, unit: UnitOfWork): DataApi {
    return { repo: (object: string) => this.scopedRepo(object, request, unit) };
  }
}
