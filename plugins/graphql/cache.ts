/**
 * The current schema, built from metadata and rebuilt when metadata changes.
 *
 * The metadata registry's revision goes up with every change made at run time (the metadata
 * API's PUT of an object's label or description, which the schema carries as type descriptions):
 * the schema is current while the revision it was built at is, one integer compare per request.
 * The documents parsed and validated against an old schema go with it.
 */
import type { GraphQLSchema } from 'graphql';
import type { ObjectDefinition } from '../../kernel';
import { Documents } from './document';
import type { QueryLimits } from './limits';
import type { BuiltSchema } from './schema';

/** What the schema is built from: `kernel.registry`. */
export interface MetadataSource {
  readonly revision: number;
  objects(): ObjectDefinition[];
}

export interface CurrentSchema extends BuiltSchema {
  /** The documents checked against this schema, by query text. */
  documents: Documents;
}

interface Built extends CurrentSchema {
  /** The registry's revision this schema was built at. */
  revision: number;
}

export class SchemaCache {
  private built?: Built;
  private builds = 0;

  constructor(
    /** The registry (there once the kernel has loaded the metadata). */
    private readonly metadata: () => MetadataSource,
    private readonly build: (objects: ObjectDefinition[]) => BuiltSchema,
    /** Whether documents may use introspection (`__schema`, `__type`). */
    private readonly introspection: boolean,
    /** What a document may ask (limits.ts). */
    private readonly limits: QueryLimits,
    /** The run from which an operation runs compiled; 0: never (document.ts). */
    private readonly jit = 0,
  ) {}

  /** How many times the schema was built (for tests and logs). */
  get buildCount(): number {
    return this.builds;
  }

  get(): CurrentSchema {
    // Read before building: a change made while building leaves this schema stale, not current.
    const registry = this.metadata();
    const revision = registry.revision;
    if (this.built?.revision === revision) return this.built;
    const built = this.build(registry.objects());
    this.builds += 1;
    this.built = { ...built, documents: new Documents(built.schema, this.introspection, this.limits, this.jit), revision };
    return this.built;
  }

  get schema(): GraphQLSchema {
    return this.get().schema;
  }
}
