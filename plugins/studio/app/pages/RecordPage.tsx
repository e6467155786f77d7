/**
 * One record: a form generated from the object's fields (fields/), saved with the record's ETag
 * (a change made meanwhile is refused, never overwritten), delete, record actions, the records of
 * other objects that point at this one, and live updates. `/o/:object/new?<field>=<value>` opens
 * an empty record, prefilled from the query string.
 */
import { useLocation, useRoute } from 'preact-iso';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { ActionDialog } from '../components/ActionDialog';
import { Confirm } from '../components/Dialog';
import { RelatedLists } from '../components/RelatedList';
import { Loading, ErrorMessage } from '../components/Status';
import { fromForm, isEmptyForm, isSystemField, sameForm, toForm, type FormValues } from '../fields/convert';
import { fieldId, FieldRow } from '../fields/FieldRow';
import { recordName } from '../format';
import { useLoad, useTitle } from '../hooks';
import type { Change } from '../live';
import { useStudio } from '../studio';
import type { ActionDescriptor, DataRecord, FieldDescriptor, ObjectAccess, ObjectDescriptor } from '../types';

const LEAVE_MESSAGE = 'You have unsaved changes. Leave this page?';
const CONFLICT_MESSAGE = 'This record was changed by someone else since you opened it.';

export function RecordPage() {
  const { params, query } = useRoute();
  const object = params.object ?? '';
  const id = params.id;
  // A new component per record: nothing of one record's form leaks into the next.
  return <RecordView key={`${object}/${id ?? ''}`} object={object} id={id} prefill={id === undefined ? query : {}} />;
}

function RecordView({ object, id, prefill }: { object: string; id?: string; prefill: Record<string, string> }) {
  const studio = useStudio();
  const [meta, retry] = useLoad(async () => {
    const [descriptor, access] = await Promise.all([
      studio.api.object(object),
      studio.api.access(object).catch((err: unknown) => {
        // A service without the access route: let the service itself refuse what is not allowed.
        if (err instanceof ApiError && err.status === 404 && err.code !== 'NOT_FOUND') return undefined;
        throw err;
      }),
    ]);
    return { descriptor, access };
  }, [object]);
  const label = studio.objects.get(object)?.label ?? object;
  // Once loaded, the form names the page (its record's name).
  useEffect(() => {
    if (meta.state !== 'ready') document.title = `${id ? label : `New ${label}`} · ${studio.settings.title}`;
  }, [meta.state]);
  if (meta.state === 'loading') return <Loading what={label} />;
  if (meta.state === 'failed')
    return (
      <>
        <h1>{label}</h1>
        <ErrorMessage error={meta.error} retry={retry} />
      </>
    );
  return <RecordForm descriptor={meta.value.descriptor} access={meta.value.access} id={id} prefill={prefill} />;
}

type Notice =
  | { kind: 'validation'; message: string; fields: Record<string, string> }
  | { kind: 'error'; error: Error }
  | { kind: 'conflict'; message: string }
  | { kind: 'deleted' };

interface Loaded {
  record: DataRecord;
  etag?: string;
}

function RecordForm({
  descriptor,
  access,
  id,
  prefill,
}: {
  descriptor: ObjectDescriptor;
  access?: ObjectAccess;
  id?: string;
  prefill: Record<string, string>;
}) {
  const studio = useStudio();
  const { route } = useLocation();
  const object = descriptor.name;
  const isNew = id === undefined;
  const summary = studio.objects.get(object);

  // Fields this user may read (a hidden field is absent from `access.fields`), and which of them they may change.
  const fields = useMemo(() => {
    const known = access?.fields && Object.keys(access.fields).length ? access.fields : undefined;
    return descriptor.fields.filter((f) => (!known || f.name in known) && !(isNew && isSystemField(f)));
  }, [descriptor, access, isNew]);
  const editable = (f: FieldDescriptor) => {
    if (isSystemField(f)) return false;
    if (access && !(isNew ? access.create : access.edit)) return false;
    return access?.fields?.[f.name]?.edit !== false;
  };

  const [loaded, setLoaded] = useState<Loaded | undefined>();
  const [loadError, setLoadError] = useState<Error>();
  const [initial, setInitial] = useState<FormValues>(() => (isNew ? newValues(fields, prefill) : {}));
  const [values, setValues] = useState<FormValues>(initial);
  const [notice, setNotice] = useState<Notice>();
  const [status, setStatus] = useState<string>(() => {
    return studio.notes.take(`${object}/${id ?? ''}`) ?? '';
  });
  const [busy, setBusy] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [runAction, setRunAction] = useState<ActionDescriptor>();
  const alertRef = useRef<HTMLDivElement>(null);

  const changed = fields.filter((f) => editable(f) && !sameForm(values[f.name], initial[f.name]));
  const dirty = changed.length > 0;

  // What the live listener reads without re-subscribing.
  const state = useRef({ dirty, loaded });
  state.current = { dirty, loaded };

  function show(record: DataRecord, etag?: string) {
    setLoaded({ record, etag });
    const next = formValues(fields, record);
    setInitial(next);
    setValues(next);
  }

  async function load(silent = false) {
    if (!id) return;
    try {
      const { record, etag } = await studio.api.get(object, id);
      show(record, etag);
      setLoadError(undefined);
    } catch (err) {
      if (silent && err instanceof ApiError && err.status === 404) setNotice({ kind: 'deleted' });
      else if (!silent) setLoadError(err as Error);
    }
  }

  useEffect(() => {
    void load();
  }, []);

  // Focus goes to a new alert, so that it is read at once.
  useEffect(() => {
    if (notice) alertRef.current?.focus();
  }, [notice]);

  // Live: another client's change reloads a clean form, and is announced over a dirty one.
  useEffect(() => {
    if (!id || !studio.live.available) return;
    return studio.live.subscribe(object, [['id', '=', id]], (change: Change | 'reconnected') => {
      const { dirty: isDirty, loaded: current } = state.current;
      if (change === 'reconnected') {
        if (!isDirty) void load(true);
        return;
      }
      if (change.operation === 'deleted') {
        setNotice({ kind: 'deleted' });
        return;
      }
      if (change.operation !== 'updated') return;
      // Our own save arrives too: the same version as the one we hold.
      const version = change.record.updated_at;
      if (current && version !== undefined && version === current.record.updated_at) return;
      if (!isDirty) void load(true);
      else
        setNotice({
          kind: 'conflict',
          message: 'This record was just changed by someone else. Reload it to see their changes (your edits will be discarded).',
        });
    });
  }, [object, id]);

  // The unsaved-change guard: leaving the page, and following a link inside the console.
  useEffect(() => {
    if (!dirty) return;
    const beforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    const click = (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
      const link = (e.target as Element | null)?.closest?.('a[href]');
      if (!(link instanceof HTMLAnchorElement) || (link.target && link.target !== '_self') || link.hasAttribute('download')) return;
      if (link.origin !== location.origin) return;
      if (link.pathname === location.pathname && link.search === location.search && link.hash) return; // in-page anchor
      if (!window.confirm(LEAVE_MESSAGE)) {
        e.preventDefault();
        e.stopPropagation();
      }
    };
    window.addEventListener('beforeunload', beforeUnload);
    document.addEventListener('click', click, true);
    return () => {
      window.removeEventListener('beforeunload', beforeUnload);
      document.removeEventListener('click', click, true);
    };
  }, [dirty]);

  const title = isNew ? `New ${descriptor.label}` : loaded ? recordName(loaded.record, summary ?? toSummary(descriptor)) : descriptor.label;
  useTitle(title, studio.settings.title);

  function fail(err: unknown) {
    if (err instanceof ApiError && err.code === 'VALIDATION_ERROR') {
      setNotice({ kind: 'validation', message: err.message, fields: err.fieldErrors });
    } else if (err instanceof ApiError && (err.status === 412 || err.code === 'PRECONDITION_FAILED')) {
      setNotice({ kind: 'conflict', message: CONFLICT_MESSAGE });
    } else if (err instanceof ApiError && err.status === 404 && !isNew) {
      setNotice({ kind: 'deleted' });
    } else {
      setNotice({ kind: 'error', error: err instanceof Error ? err : new Error(String(err)) });
    }
  }

  async function save(e: Event) {
    e.preventDefault();
    setStatus('');
    // Values that cannot be sent (bad JSON, ...) and required fields left empty, before asking the service.
    const errors: Record<string, string> = {};
    const data: Record<string, unknown> = {};
    const send = isNew ? fields.filter((f) => editable(f) && !isEmptyForm(values[f.name])) : changed;
    for (const f of send) {
      try {
        data[f.name] = fromForm(f, values[f.name]);
      } catch (err) {
        errors[f.name] = (err as Error).message;
      }
    }
    for (const f of fields)
      if (editable(f) && f.required && f.type !== 'boolean' && isEmptyForm(values[f.name])) errors[f.name] = 'is required';
    if (Object.keys(errors).length) {
      setNotice({ kind: 'validation', message: 'Some values need attention.', fields: errors });
      return;
    }
    if (!isNew && !Object.keys(data).length) {
      setNotice(undefined);
      setStatus('No changes to save');
      return;
    }
    setBusy(true);
    try {
      if (isNew) {
        const created = await studio.api.create(object, data);
        setInitial(values); // clean: the guard lets the navigation through
        studio.notes.leave(`${object}/${created.id}`, 'Saved');
        route(studio.href(`/o/${encodeURIComponent(object)}/r/${encodeURIComponent(created.id)}`));
        return;
      }
      const { record, etag } = await studio.api.update(object, id, data, loaded?.etag);
      // The answer holds the changed fields only: merge them, then read the whole record (hooks may have changed more).
      show({ ...(loaded?.record ?? { id }), ...record }, etag ?? loaded?.etag);
      await load(true);
      setNotice(undefined);
      setStatus('Saved');
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  }

  async function remove() {
    setConfirmDelete(false);
    if (!id) return;
    setBusy(true);
    try {
      await studio.api.remove(object, id, loaded?.etag);
      setInitial(values);
      route(studio.href(`/o/${encodeURIComponent(object)}`));
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  }

  async function reload() {
    setNotice(undefined);
    setStatus('');
    await load();
    setStatus('Reloaded');
  }

  if (!isNew && !loaded) {
    if (loadError)
      return (
        <>
          <h1>{descriptor.label}</h1>
          <ErrorMessage error={loadError} retry={() => void load()} />
        </>
      );
    return <Loading what={descriptor.label} />;
  }

  const canSave = isNew ? access?.create !== false : access?.edit !== false;
  const canDelete = !isNew && access?.delete === true;
  const recordActions = isNew ? [] : descriptor.actions.filter((a) => a.type === 'record');
  const listHref = studio.href(`/o/${encodeURIComponent(object)}`);
  const fieldErrors = notice?.kind === 'validation' ? notice.fields : {};
  const labelOf = (name: string) => fields.find((f) => f.name === name)?.label ?? name;

  return (
    <div class="record-page">
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href={listHref}>{descriptor.label}</a> <span aria-hidden="true">›</span> <span aria-current="page">{isNew ? 'New' : title}</span>
      </nav>
      <h1 id="record-title">{title}</h1>
      <p class="status-line" role="status">
        {status ? (
          <>
            <span aria-hidden="true">✓ </span>
            {status}
          </>
        ) : null}
      </p>

      {notice ? (
        <div class="alert error" role="alert" tabIndex={-1} ref={alertRef}>
          {notice.kind === 'validation' ? (
            <>
              <p>
                <strong>The record could not be saved.</strong> {Object.keys(notice.fields).length ? null : notice.message}
              </p>
              {Object.keys(notice.fields).length ? (
                <ul>
                  {Object.entries(notice.fields).map(([name, message]) => (
                    <li key={name}>
                      {fields.some((f) => f.name === name) ? (
                        <a
                          href={`#${fieldId(name)}`}
                          onClick={(e) => {
                            e.preventDefault();
                            document.getElementById(fieldId(name))?.focus();
                          }}
                        >
                          {labelOf(name)}
                        </a>
                      ) : (
                        labelOf(name)
                      )}
                      : {message}
                    </li>
                  ))}
                </ul>
              ) : null}
            </>
          ) : notice.kind === 'conflict' ? (
            <>
              <p>{notice.message}</p>
              {notice.message === CONFLICT_MESSAGE ? (
                <p>Your edits were not saved. Reloading shows the current version and discards them.</p>
              ) : null}
              <button type="button" onClick={() => void reload()}>
                Reload
              </button>
            </>
          ) : notice.kind === 'deleted' ? (
            <>
              <p>This record was deleted by someone else.</p>
              <a href={listHref}>Back to {descriptor.label}</a>
            </>
          ) : (
            <>
              <p>
                {notice.error instanceof ApiError ? <strong>{notice.error.code}: </strong> : null}
                {notice.error.message}
              </p>
              <button type="button" onClick={() => setNotice(undefined)}>
                Dismiss
              </button>
            </>
          )}
        </div>
      ) : null}

      {!canSave && !isNew ? <p class="muted">You may read this record but not change it.</p> : null}

      <form class="form record-form" aria-labelledby="record-title" onSubmit={(e) => void save(e)} noValidate>
        {fields.map((f) => (
          <FieldRow
            key={f.name}
            field={f}
            object={object}
            value={values[f.name]}
            readOnly={!editable(f)}
            error={fieldErrors[f.name]}
            onChange={(v) => {
              setValues((current) => ({ ...current, [f.name]: v }));
              if (status) setStatus('');
            }}
          />
        ))}
        <div class="buttons form-buttons">
          {canSave ? (
            <button type="submit" class="primary" disabled={busy || (!isNew && !dirty) || notice?.kind === 'deleted'}>
              {isNew ? 'Create' : 'Save'}
            </button>
          ) : null}
          {!isNew && dirty ? (
            <button type="button" onClick={() => setValues(initial)} disabled={busy}>
              Discard changes
            </button>
          ) : null}
          {isNew ? (
            <a class="button" href={listHref}>
              Cancel
            </a>
          ) : null}
          {dirty ? <span class="muted">Unsaved changes</span> : null}
        </div>
      </form>

      {!isNew && (recordActions.length || canDelete) ? (
        <section aria-labelledby="record-actions" class="record-actions">
          <h2 id="record-actions">Actions</h2>
          <div class="buttons">
            {recordActions.map((a) => (
              <button
                key={a.name}
                type="button"
                onClick={() => setRunAction(a)}
                disabled={busy || notice?.kind === 'deleted'}
                title={a.description}
              >
                {a.label}
              </button>
            ))}
            {canDelete ? (
              <button type="button" class="danger" onClick={() => setConfirmDelete(true)} disabled={busy || notice?.kind === 'deleted'}>
                Delete
              </button>
            ) : null}
          </div>
        </section>
      ) : null}

      {!isNew && id ? <RelatedLists object={object} id={id} /> : null}

      {confirmDelete ? (
        <Confirm
          title={`Delete ${title}?`}
          message={`The ${descriptor.label.toLowerCase()} “${title}” will be deleted. This cannot be undone.`}
          confirm="Delete"
          onConfirm={() => void remove()}
          onCancel={() => setConfirmDelete(false)}
        />
      ) : null}
      {runAction && id ? (
        <ActionDialog
          object={object}
          action={runAction}
          id={id}
          onClose={() => setRunAction(undefined)}
          onDone={() => {
            if (!state.current.dirty) void load(true);
            else
              setNotice({
                kind: 'conflict',
                message: 'The action changed this record. Reload it to see the result (your edits will be discarded).',
              });
          }}
        />
      ) : null}
    </div>
  );
}

function formValues(fields: FieldDescriptor[], record: DataRecord): FormValues {
  return Object.fromEntries(fields.map((f) => [f.name, toForm(f, record[f.name])]));
}

/** A new record's values: the fields' defaults, then the query string (`?project=prj-1`). */
function newValues(fields: FieldDescriptor[], prefill: Record<string, string>): FormValues {
  return Object.fromEntries(
    fields.map((f) => {
      const given = Object.prototype.hasOwnProperty.call(prefill, f.name) ? prefill[f.name] : undefined;
      return [f.name, toForm(f, given !== undefined ? given : f.defaultValue)];
    }),
  );
}

function toSummary(descriptor: ObjectDescriptor) {
  return { fields: Object.fromEntries(descriptor.fields.map((f) => [f.name, f])) };
}
