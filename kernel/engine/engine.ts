import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/schema';
import type { RequestContext } from '../context';
import type { DatasourceManager } from '../datasources';
import type { Datasource } from '../drivers';
import { ObjectQLError } from '../errors';
import type { KernelHooks } from '../hooks';
import type { MetadataRegistry } from '../metadata/registry';
import type { FieldDefinition, ObjectDefinition } from '../metadata/types';
import { ObjectPermissions } from './permissions';
import { ObjectRepository } from './repository';
import type { DataApi, Repository } from './types';
import { UnitOfWork } from './unit-of-work';

/** Per-object structures computed once at start-up. */
export interface CompiledObject {
  def: ObjectDefinition;
  fieldNames: ReadonlySet<string>;
  datasource: Datasource;
  permissions: ObjectPermissions;
  relations: FieldDefinition[];
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

/** The only road to data: every protocol and every hook goes through `repo()`. */
export class DataEngine {
  private readonly compiled = new Map<string, CompiledObject>();

  constructor(readonly deps: EngineDeps) {
    const adminRoles = new Set(deps.config.security.adminRoles);
    const objects = deps.registry.objects();
    for (const def of objects) {
      const fields = Object.values(def.fields);
      this.compiled.set(def.name, {
        def,
        fieldNames: new Set(Object.keys(def.fields)),
        datasource: deps.datasources.get(def.datasource),
        permissions: new ObjectPermissions(def, adminRoles),
        relations: fields.filter((f) => f.type === 'lookup' || f.type === 'master_detail'),
        details: objects.flatMap((o) => Object.values(o.fields).filter((f) => f.type === 'master_detail' && f.reference_to === def.name).map((f) => ({ object: o.name, field: f.name }))),
        uniqueFields: fields.filter((f) => f.unique),
        autoNumbers: fields.filter((f) => f.type === 'auto_number'),
      });
    }
  }

  get limits(): ResolvedConfig['limits'] {
    return this.deps.config.limits;
  }

  has(object: string): boolean {
    return this.compiled.has(object);
  }

  object(name: string): CompiledObject {
    const c = typeof name === 'string' ? this.compiled.get(name) : undefined;
    if (!c) throw new ObjectQLError('NOT_FOUND', `Object '${String(name)}' not found`, { object: name });
    return c;
  }

  /** One object as seen by one caller. Unknown objects are NOT_FOUND. */
  repo(object: string, request: RequestContext = {}): Repository {
    return new ObjectRepository(this, this.object(object), request, new UnitOfWork());
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
