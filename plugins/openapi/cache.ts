/**
 * The served document, built on first request and kept as a ready JSON string with its ETag.
 *
 * What shapes the document is fixed once the kernel has started — routes, options, the taps on
 * the `openapi` hook — except the metadata, whose run-time changes (the metadata API's update of
 * a label or description) move the registry's revision. So the document is current while the
 * revision it was built at is: one integer compare per request.
 */
import { createHash } from 'node:crypto';
import type { OpenAPIDocument } from '../../kernel/protocol';

export interface ServedDocument {
  json: string;
  etag: string;
}

interface Built extends ServedDocument {
  revision: number;
}

export class DocumentCache {
  private built?: Built;
  private builds = 0;

  /** `revision`: the metadata's current revision (`kernel.registry.revision`); `build`: the document from the metadata as it is now. */
  constructor(
    private readonly revision: () => number,
    private readonly build: () => OpenAPIDocument,
  ) {}

  /** How many times the document was built (for tests and logs). */
  get buildCount(): number {
    return this.builds;
  }

  get(): ServedDocument {
    const revision = this.revision();
    if (this.built?.revision === revision) return this.built;
    const json = JSON.stringify(this.build());
    this.builds += 1;
    const etag = `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
    this.built = { json, etag, revision };
    return this.built;
  }
}
