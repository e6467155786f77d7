/**
 * The served document, built on first request and kept as a ready JSON string with its ETag.
 *
 * Metadata is fixed at run time except the label and description of objects (the metadata API's
 * PUT updates the registry's definitions in place). So the cache remembers, for each object
 * definition it was built from, the label and description it saw; a request compares them (a loop
 * over the objects, no allocation, no hashing) and rebuilds only when one changed. Everything else
 * that shapes the document — routes, options, the taps on the `openapi` hook — is fixed once the
 * kernel has started.
 */
import { createHash } from 'node:crypto';
import type { ObjectDefinition } from '../../kernel';
import type { OpenAPIDocument } from '../../kernel/protocol';

export interface ServedDocument {
  json: string;
  etag: string;
}

interface Built extends ServedDocument {
  seen: { def: ObjectDefinition; label: string; description: string | undefined }[];
}

export class DocumentCache {
  private built?: Built;
  private builds = 0;

  constructor(
    private readonly objects: () => ObjectDefinition[],
    private readonly build: (objects: ObjectDefinition[]) => OpenAPIDocument,
  ) {}

  /** How many times the document was built (for tests and logs). */
  get buildCount(): number {
    return this.builds;
  }

  get(): ServedDocument {
    if (this.built && this.isFresh(this.built)) return this.built;
    const objects = this.objects();
    const seen = objects.map((def) => ({ def, label: def.label, description: def.description }));
    const json = JSON.stringify(this.build(objects));
    this.builds += 1;
    const etag = `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
    this.built = { json, etag, seen };
    return this.built;
  }

  private isFresh(built: Built): boolean {
    for (const s of built.seen) {
      if (s.def.label !== s.label || s.def.description !== s.description) return false;
    }
    return true;
  }
}
