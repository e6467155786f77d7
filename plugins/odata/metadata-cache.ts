/**
 * The $metadata documents, built once per view and kept as ready XML with an ETag. A view is what
 * one set of roles may read (the objects and, of each, the readable fields): callers whose roles
 * give the same view share one document, and the number of views is bounded by the roles the
 * permission files name.
 *
 * What metadata changes at run time (the label and description of objects, by the metadata API's
 * PUT, which the document carries as annotations) moves the registry's revision: the documents
 * are current while it has not moved (one integer compare per request), and all dropped when it has.
 */
import { createHash } from 'node:crypto';
import type { User } from '../../kernel';
import type { CapabilitySettings } from './capabilities';
import { buildEdmx, DEFAULT_CAPABILITIES, type EdmxObject } from './edmx';
import type { ODataModel } from './model';

export interface MetadataDocument {
  xml: string;
  etag: string;
}

export class MetadataCache {
  private readonly documents = new Map<string, MetadataDocument>();
  /** The registry revision the documents were built at. */
  private revision: number | undefined;
  private readonly setIds = new WeakMap<ReadonlySet<string>, number>();
  private nextSetId = 0;
  private builds = 0;

  constructor(
    private readonly model: ODataModel,
    private readonly capabilities: CapabilitySettings = DEFAULT_CAPABILITIES,
  ) {}

  /** How many documents were built (for tests). */
  get buildCount(): number {
    return this.builds;
  }

  get(user: User | undefined): MetadataDocument {
    this.dropIfChanged();
    const visible = this.model.visibleObjects(user);
    const key = visible.map((v) => `${v.def.name}:${this.setId(v.readable)}`).join(',');
    let doc = this.documents.get(key);
    if (!doc) {
      const byName = new Map(visible.map((v) => [v.def.name, v.readable]));
      const objects: EdmxObject[] = visible.map(({ def, readable }) => ({
        def,
        readable,
        relations: [
          ...this.model.relations(def).filter((r) => readable.has(r.field) && byName.has(r.target)),
          // One-to-many: the target listed, its relation field readable.
          ...this.model.collections(def).filter((r) => byName.get(r.target)?.has(r.field)),
        ],
      }));
      const xml = buildEdmx(objects, this.capabilities);
      doc = { xml, etag: `"${createHash('sha256').update(xml).digest('base64url').slice(0, 27)}"` };
      this.documents.set(key, doc);
      this.builds += 1;
    }
    return doc;
  }

  private setId(set: ReadonlySet<string>): number {
    let id = this.setIds.get(set);
    if (id === undefined) this.setIds.set(set, (id = this.nextSetId++));
    return id;
  }

  private dropIfChanged(): void {
    const revision = this.model.source.revision();
    if (revision === this.revision) return;
    this.documents.clear();
    this.revision = revision;
  }
}
