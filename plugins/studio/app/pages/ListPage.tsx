/**
 * A list of records: paged, sorted and filtered by the server, one page at a time (a million-row
 * object costs one page), with free-text search, a filter builder, column choice and the object's
 * `view` metadata (columns, sort, filter). The whole state is in the URL, so a list can be
 * bookmarked and shared. Lookups show the related record's name, select options their labels,
 * attachments links and thumbnails. The page reloads when another client changes the object.
 */
import { useLocation, useRoute } from 'preact-iso';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { ActionDialog } from '../components/ActionDialog';
import { FilterBuilder } from '../components/FilterBuilder';
import { Await } from '../components/Status';
import { and, builderFilter, formatConditions, parseConditions, searchFilter, TEXT_TYPES, type BuilderCondition } from '../filters';
import { attachments, displayValue, nameField } from '../format';
import { useLoad, useTitle } from '../hooks';
import { useStudio } from '../studio';
import type { ActionDescriptor, DataRecord, FieldDescriptor, ObjectAccess, ObjectDescriptor, PageMeta, ViewEntry } from '../types';

const PAGE_SIZES = [10, 25, 50, 100];
const DEFAULT_SIZE = 25;
const DEFAULT_COLUMNS = 7;
const NUMERIC = new Set(['number', 'currency', 'percent', 'auto_number']);

/** The list's state as the URL keeps it. */
interface ListState {
  q: string;
  sort?: string;
  dir: 'asc' | 'desc';
  page: number;
  size: number;
  cols?: string[];
  f: BuilderCondition[];
  view?: string;
}

function readState(query: Record<string, string>): ListState {
  const page = Number.parseInt(query.page ?? '1', 10);
  const size = Number.parseInt(query.size ?? String(DEFAULT_SIZE), 10);
  return {
    q: query.q ?? '',
    sort: query.sort || undefined,
    dir: query.dir === 'desc' ? 'desc' : 'asc',
    page: Number.isFinite(page) && page > 0 ? page : 1,
    size: PAGE_SIZES.includes(size) ? size : DEFAULT_SIZE,
    cols: query.cols ? query.cols.split(',').filter(Boolean) : undefined,
    f: parseConditions(query.f),
    view: query.view || undefined,
  };
}

function writeState(state: ListState): string {
  const params = new URLSearchParams();
  if (state.view) params.set('view', state.view);
  if (state.q) params.set('q', state.q);
  if (state.sort) params.set('sort', state.sort);
  if (state.sort && state.dir === 'desc') params.set('dir', 'desc');
  const f = formatConditions(state.f);
  if (f) params.set('f', f);
  if (state.cols) params.set('cols', state.cols.join(','));
  if (state.page > 1) params.set('page', String(state.page));
  if (state.size !== DEFAULT_SIZE) params.set('size', String(state.size));
  const text = params.toString();
  return text ? `?${text}` : '';
}

interface Schema {
  object: ObjectDescriptor;
  access: ObjectAccess;
  views: Array<{ id: string; content: ViewEntry }>;
}

export function ListPage() {
  const studio = useStudio();
  const { params } = useRoute();
  const name = params.object;
  const [schema, retry] = useLoad<Schema>(async () => {
    const [object, access, views] = await Promise.all([
      studio.api.object(name),
      studio.api.access(name),
      studio.api.entries<ViewEntry>('view'),
    ]);
    return { object, access, views: views.filter((v) => v.content.object === name) };
  }, [name]);
  return (
    <Await loaded={schema} what={`the ${name} list`} retry={retry}>
      {(s) => <RecordList key={name} schema={s} />}
    </Await>
  );
}

function RecordList({ schema }: { schema: Schema }) {
  const studio = useStudio();
  const { path, query, route } = useLocation();
  const { object, access } = schema;
  const state = readState(query);
  const view = schema.views.find((v) => v.id === state.view)?.content;
  useTitle(view?.label ?? object.label, studio.settings.title);

  const fields = useMemo(() => new Map(object.fields.map((f) => [f.name, f])), [object]);
  const title = nameField({ fields: Object.fromEntries(fields) });
  const columns = useMemo(() => {
    const wanted = state.cols ?? view?.columns ?? defaultColumns(object.fields, title);
    return wanted.map((c) => fields.get(c)).filter((f): f is FieldDescriptor => !!f);
  }, [state.cols, view, object, title]);
  const sort: Array<[string, 'asc' | 'desc']> = state.sort && fields.has(state.sort) ? [[state.sort, state.dir]] : (view?.sort ?? []);
  const filters = and(view?.filters, builderFilter(state.f, fields), searchFilter(state.q, object.fields));

  const go = (patch: Partial<ListState>) => route(`${path}${writeState({ ...state, page: 1, ...patch })}`);

  const [reloads, setReloads] = useState(0);
  const [page, retry] = useLoad(() => {
    const expand: Record<string, { fields: string[] }> = {};
    for (const c of columns) {
      const target = (c.type === 'lookup' || c.type === 'master_detail') && c.reference_to ? studio.objects.get(c.reference_to) : undefined;
      const targetName = target && nameField(target);
      if (targetName) expand[c.name] = { fields: ['id', targetName] };
    }
    return studio.api.find(object.name, {
      fields: ['id', ...columns.map((c) => c.name).filter((c) => c !== 'id')],
      ...(filters.length ? { filters } : {}),
      ...(sort.length ? { sort } : {}),
      top: state.size,
      skip: (state.page - 1) * state.size,
      ...(Object.keys(expand).length ? { expand } : {}),
    });
  }, [object.name, JSON.stringify([columns.map((c) => c.name), filters, sort, state.page, state.size]), reloads]);

  // Another client's change: this page again, once the burst of changes is over.
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (!studio.live.available) return;
    const unsubscribe = studio.live.subscribe(object.name, undefined, () => {
      window.clearTimeout(timer.current);
      timer.current = window.setTimeout(() => setReloads((n) => n + 1), 200);
    });
    return () => {
      window.clearTimeout(timer.current);
      unsubscribe();
    };
  }, [object.name]);

  const limit = page.state === 'failed' ? skipLimit(page.error) : undefined;
  const [action, setAction] = useState<ActionDescriptor>();
  const globalActions = object.actions.filter((a) => a.type === 'global');
  const [searchText, setSearchText] = useState(state.q);
  useEffect(() => setSearchText(state.q), [state.q]);

  return (
    <>
      <h1>{view?.label ?? object.label}</h1>
      {object.description ? <p class="muted">{object.description}</p> : null}
      <div class="toolbar">
        {access.create ? (
          <a class="button primary" href={studio.href(`/o/${encodeURIComponent(object.name)}/new`)}>
            New {object.label}
          </a>
        ) : null}
        {globalActions.map((a) => (
          <button key={a.name} type="button" onClick={() => setAction(a)}>
            {a.label}
          </button>
        ))}
        {schema.views.length ? (
          <label>
            View
            <select
              value={state.view ?? ''}
              onChange={(e) => go({ view: e.currentTarget.value || undefined, sort: undefined, cols: undefined })}
            >
              <option value="">All records</option>
              {schema.views.map((v) => (
                <option key={v.id} value={v.id}>
                  {v.content.label ?? v.id}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {object.fields.some((f) => TEXT_TYPES.has(f.type)) ? (
          <form
            role="search"
            onSubmit={(e) => {
              e.preventDefault();
              go({ q: searchText.trim() });
            }}
          >
            <label>
              Search
              <input type="search" value={searchText} onInput={(e) => setSearchText(e.currentTarget.value)} />
            </label>
            <button type="submit">Search</button>
          </form>
        ) : null}
        <ColumnChooser fields={object.fields} columns={columns} onChange={(cols) => go({ cols, page: state.page })} />
      </div>
      <FilterBuilder fields={object.fields} rows={state.f} onChange={(f) => go({ f })} />
      {limit !== undefined ? (
        <div class="alert info" role="alert">
          <p>
            This list goes no further than record {limit} in this order. Sort the other way or add a filter to reach the records after it.
          </p>
          <button type="button" onClick={() => go({})}>
            First page
          </button>
        </div>
      ) : (
        <Await loaded={page} what="records" retry={retry}>
          {({ items, meta }) => (
            <>
              <div class="grid-wrap">
                <table class="grid">
                  <caption class="muted">
                    {object.label} records
                    {meta.total ? `: ${first(meta, state)}–${first(meta, state) + items.length - 1} of ${meta.total}` : ''}
                  </caption>
                  <thead>
                    <tr>
                      {columns.map((c) => {
                        const current = sort[0]?.[0] === c.name ? sort[0][1] : undefined;
                        return (
                          <th
                            key={c.name}
                            scope="col"
                            aria-sort={current === 'asc' ? 'ascending' : current === 'desc' ? 'descending' : undefined}
                          >
                            {c.type === 'json' || c.type === 'object' || c.type === 'file' || c.type === 'image' ? (
                              c.label
                            ) : (
                              <button type="button" onClick={() => go(nextSort(c.name, current))}>
                                {c.label}
                                <span aria-hidden="true">{current === 'asc' ? ' ▲' : current === 'desc' ? ' ▼' : ''}</span>
                              </button>
                            )}
                          </th>
                        );
                      })}
                    </tr>
                  </thead>
                  <tbody>
                    {items.map((record) => (
                      <tr key={record.id}>
                        {columns.map((c, i) => (
                          <td key={c.name} class={NUMERIC.has(c.type) ? 'number' : undefined}>
                            {cell(c, record, i === 0 || c.name === title)}
                          </td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {items.length ? null : <p>No records{filters.length ? ' match these filters' : ''}.</p>}
              <nav class="pager" aria-label="Pages">
                <button type="button" disabled={state.page <= 1} onClick={() => go({ page: state.page - 1 })}>
                  Previous page
                </button>
                <span>
                  Page {meta.total ? state.page : 0} of {Math.max(meta.pages, meta.total ? 1 : 0)}
                </span>
                <button type="button" disabled={!meta.has_next} onClick={() => go({ page: state.page + 1 })}>
                  Next page
                </button>
                <label>
                  Rows per page{' '}
                  <select value={state.size} onChange={(e) => go({ size: Number(e.currentTarget.value) })}>
                    {PAGE_SIZES.map((n) => (
                      <option key={n} value={n}>
                        {n}
                      </option>
                    ))}
                  </select>
                </label>
              </nav>
            </>
          )}
        </Await>
      )}
      {action ? (
        <ActionDialog object={object.name} action={action} onClose={() => setAction(undefined)} onDone={() => setReloads((n) => n + 1)} />
      ) : null}
    </>
  );

  function cell(field: FieldDescriptor, record: DataRecord, link: boolean) {
    const value = record[field.name];
    if (field.type === 'file' || field.type === 'image') {
      return (
        <>
          {attachments(value).map((a) => (
            <a key={a.url} href={a.url} target="_blank" rel="noopener">
              {field.type === 'image' ? <img class="thumb" src={a.thumbnail_url ?? a.url} alt={a.name} /> : a.name}
            </a>
          ))}
        </>
      );
    }
    const related = field.reference_to ? studio.objects.get(field.reference_to) : undefined;
    const text = displayValue(field, value, related);
    if (link) {
      return <a href={studio.href(`/o/${encodeURIComponent(object.name)}/r/${encodeURIComponent(record.id)}`)}>{text || record.id}</a>;
    }
    if (related && value && typeof value === 'object' && 'id' in value) {
      const id = String((value as DataRecord).id);
      return <a href={studio.href(`/o/${encodeURIComponent(related.name)}/r/${encodeURIComponent(id)}`)}>{text}</a>;
    }
    return <>{text}</>;
  }
}

/** The service's bound on `skip` (limits.maxSkip) when this error is its refusal: deep pages are reached by sorting or filtering. */
function skipLimit(error: Error): number | undefined {
  const details = error instanceof ApiError ? (error.details as { limit?: unknown; max?: unknown } | undefined) : undefined;
  return details?.limit === 'maxSkip' && typeof details.max === 'number' ? details.max : undefined;
}

function first(meta: PageMeta, state: ListState): number {
  return (state.page - 1) * state.size + (meta.total ? 1 : 0);
}

/** asc → desc → unsorted. */
function nextSort(field: string, current: 'asc' | 'desc' | undefined): Partial<ListState> {
  if (current === 'asc') return { sort: field, dir: 'desc' };
  if (current === 'desc') return { sort: undefined, dir: 'asc' };
  return { sort: field, dir: 'asc' };
}

function defaultColumns(fields: FieldDescriptor[], title: string | undefined): string[] {
  const rest = fields.filter((f) => !f.system && f.name !== title && f.type !== 'json' && f.type !== 'object' && f.type !== 'textarea');
  return [...(title ? [title] : ['id']), ...rest.map((f) => f.name)].slice(0, DEFAULT_COLUMNS);
}

function ColumnChooser({
  fields,
  columns,
  onChange,
}: {
  fields: FieldDescriptor[];
  columns: FieldDescriptor[];
  onChange: (cols: string[]) => void;
}) {
  const shown = new Set(columns.map((c) => c.name));
  return (
    <details class="columns">
      <summary>Columns</summary>
      <fieldset>
        <legend>Columns shown</legend>
        {fields.map((f) => (
          <label key={f.name}>
            <input
              type="checkbox"
              checked={shown.has(f.name)}
              onChange={(e) => {
                const next = e.currentTarget.checked ? [...shown, f.name] : [...shown].filter((c) => c !== f.name);
                if (next.length) onChange(fields.map((x) => x.name).filter((n) => next.includes(n)));
              }}
            />{' '}
            {f.label}
          </label>
        ))}
      </fieldset>
    </details>
  );
}
