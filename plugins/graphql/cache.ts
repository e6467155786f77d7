/**
 * The current schema, built once from metadata and rebuilt when metadata changes.
 *
 * As for the OpenAPI document (plugins/openapi/cache.ts): metadata is fixed at run time except
 * the label and description of objects (the metadata API's PUT updates them in place), which the
 * schema carries as descriptions. The cache remembers what it saw for each object and rebuilds
 * when one changed; the documents parsed and validated against the old schema go with it.
 */
import type { GraphQLSchema } from 'graphql';
import type { ObjectDefinition } from '../../kernel';
import type { Checked } from './execute';
import type { BuiltSchema } from './schema';

export interface CurrentSchema extends BuiltSchema {
  /** Parsed and validated documents of this schema, by query text (see execute.ts). */
  documents: Map<string, Checked>;
}

interface Built extends CurrentSchema {
  seen: { def: ObjectDefinition; label: string; description: string | undefined }[];
}

export class SchemaCache {
  private built?: Built;
  private builds = 0;

  constructor(
    private readonly objects: () => ObjectDefinition[],
    private readonly build: (objects: ObjectDefinition[]) => BuiltSchema,
  ) {}

  /** How many times the schema was built (for tests and logs). */
  get buildCount(): number {
    return this.builds;
  }

  get(): CurrentSchema {
    if (this.built && this.isFresh(this.built)) return this.built;
    const objects = this.objects();
    const seen = objects.map((def) => ({ def, label: def.label, description: def.description }));
    const built = this.build(objects);
    this.builds += 1;
    this.built = { ...built, documents: new Map(), seen };
    return this.built;
  }

  get schema(): GraphQLSchema {
    return this.get().schema;
  }

  private isFresh(built: Built): boolean {
    for (const s of built.seen) {
      if (s.def.label !== s.label || s.def.description !== s.description) return false;
    }
    return true;
  }
}
