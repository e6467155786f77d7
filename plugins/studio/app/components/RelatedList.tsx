/**
 * The records of other objects that point at one record: for every readable object with a lookup
 * or master_detail field referring to this record's object, a table of its records (10 a page,
 * paged on its own), linking to their pages, and a "New ..." link prefilled with this record.
 */
import { useState } from 'preact/hooks';
import { displayValue, nameField } from '../format';
import { useLoad } from '../hooks';
import { useStudio } from '../studio';
import type { FieldDescriptor, ObjectSummary } from '../types';
import { Await } from './Status';

const PAGE_SIZE = 10;
const SKIP_TYPES = new Set(['json', 'object', 'textarea', 'file', 'image']);

export interface Relation {
  object: ObjectSummary;
  field: FieldDescriptor;
}

/** Every (object, field) whose lookup refers to `object`, among the objects this user may read. */
export function relationsTo(objects: Map<string, ObjectSummary>, object: string): Relation[] {
  const relations: Relation[] = [];
  for (const summary of objects.values()) {
    for (const field of Object.values(summary.fields)) {
      if ((field.type === 'lookup' || field.type === 'master_detail') && field.reference_to === object)
        relations.push({ object: summary, field });
    }
  }
  return relations;
}

export function RelatedLists({ object, id }: { object: string; id: string }) {
  const studio = useStudio();
  const relations = relationsTo(studio.objects, object);
  if (!relations.length) return null;
  return (
    <>
      {relations.map((r) => (
        <RelatedList key={`${r.object.name}.${r.field.name}`} relation={r} id={id} />
      ))}
    </>
  );
}

export function RelatedList({ relation, id }: { relation: Relation; id: string }) {
  const studio = useStudio();
  const { object: related, field } = relation;
  const [page, setPage] = useState(0);
  const nameKey = nameField(related);
  const columns = [
    ...(nameKey ? [related.fields[nameKey]] : []),
    ...Object.values(related.fields)
      .filter((f) => f.name !== nameKey && f.name !== field.name && !f.system && f.name !== 'id' && !SKIP_TYPES.has(f.type))
      .slice(0, 4),
  ];
  const [rows, retry] = useLoad(
    () =>
      studio.api.find(related.name, {
        filters: [[field.name, '=', id]],
        fields: ['id', ...columns.map((c) => c.name)],
        top: PAGE_SIZE,
        skip: page * PAGE_SIZE,
      }),
    [related.name, field.name, id, page],
  );
  const [access] = useLoad(() => studio.api.access(related.name).catch(() => undefined), [related.name]);
  const canCreate = access.state === 'ready' && access.value?.create === true && access.value.fields?.[field.name]?.edit !== false;

  // Two lookups from one object to this one get their field named in the heading.
  const others = relationsCount(studio.objects, related.name, field.reference_to ?? '');
  const heading = others > 1 ? `${related.label} (${field.label})` : related.label;
  const headingId = `related-${related.name}-${field.name}`;
  const recordHref = (rid: string) => studio.href(`/o/${encodeURIComponent(related.name)}/r/${encodeURIComponent(rid)}`);

  return (
    <section class="related" aria-labelledby={headingId}>
      <div class="related-head">
        <h2 id={headingId}>{heading}</h2>
        {canCreate ? (
          <a
            class="button"
            href={studio.href(`/o/${encodeURIComponent(related.name)}/new?${encodeURIComponent(field.name)}=${encodeURIComponent(id)}`)}
          >
            New {related.label}
          </a>
        ) : null}
      </div>
      <Await loaded={rows} what={related.label} retry={retry}>
        {({ items, meta }) =>
          items.length ? (
            <>
              <div class="grid-wrap">
                <table class="grid">
                  <caption class="visually-hidden">
                    {heading} of this record
                    {meta.total > PAGE_SIZE ? `, page ${page + 1} of ${Math.max(1, Math.ceil(meta.total / PAGE_SIZE))}` : ''}
                  </caption>
                  <thead>
                    <tr>
                      {columns.map((c) => (
                        <th key={c.name} scope="col">
                          {c.label}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {items.map((row) => (
                      <tr key={row.id}>
                        {columns.map((c, i) => {
                          const text = displayValue(c, row[c.name], c.reference_to ? studio.objects.get(c.reference_to) : undefined);
                          const numeric = ['number', 'currency', 'percent', 'auto_number'].includes(c.type);
                          return i === 0 ? (
                            <th key={c.name} scope="row">
                              <a href={recordHref(row.id)}>{text || row.id}</a>
                            </th>
                          ) : (
                            <td key={c.name} class={numeric ? 'number' : undefined}>
                              {text}
                            </td>
                          );
                        })}
                        {columns.length ? null : (
                          <td>
                            <a href={recordHref(row.id)}>{row.id}</a>
                          </td>
                        )}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {meta.total > PAGE_SIZE || page > 0 ? (
                <nav class="pager" aria-label={`${heading} pages`}>
                  <button type="button" onClick={() => setPage((p) => Math.max(0, p - 1))} disabled={page === 0}>
                    Previous
                  </button>
                  <span>
                    {page * PAGE_SIZE + 1}–{page * PAGE_SIZE + items.length} of {meta.total}
                  </span>
                  <button type="button" onClick={() => setPage((p) => p + 1)} disabled={!meta.has_next}>
                    Next
                  </button>
                </nav>
              ) : null}
            </>
          ) : (
            <p class="muted">No {related.label.toLowerCase()} records point at this one.</p>
          )
        }
      </Await>
    </section>
  );
}

function relationsCount(objects: Map<string, ObjectSummary>, name: string, target: string): number {
  const summary = objects.get(name);
  if (!summary) return 0;
  return Object.values(summary.fields).filter((f) => (f.type === 'lookup' || f.type === 'master_detail') && f.reference_to === target)
    .length;
}
