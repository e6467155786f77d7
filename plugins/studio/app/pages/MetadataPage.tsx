/**
 * The metadata as this user may see it, read-only: each object's fields (with their validations),
 * actions, hooks, what the user may do with it and, for whoever may read them (admins), the
 * object's permission and validation files.
 */
import { useRoute } from 'preact-iso';
import { ApiError, type Api } from '../api';
import { Await } from '../components/Status';
import { optionLabel } from '../format';
import { useLoad, useTitle } from '../hooks';
import { useStudio } from '../studio';
import type { FieldDescriptor, ObjectAccess, ObjectDescriptor } from '../types';

export function MetadataPage() {
  const studio = useStudio();
  const { params } = useRoute();
  const name = params.object;
  useTitle(name ? `Metadata: ${studio.objects.get(name)?.label ?? name}` : 'Metadata', studio.settings.title);
  if (!name) {
    return (
      <>
        <h1>Metadata</h1>
        <table class="grid">
          <caption class="muted">Objects you may read</caption>
          <thead>
            <tr>
              <th scope="col">Object</th>
              <th scope="col">Name</th>
              <th scope="col">Fields you see</th>
              <th scope="col">Actions</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {[...studio.objects.values()].map((o) => (
              <tr key={o.name}>
                <td>
                  <a href={studio.href(`/meta/${encodeURIComponent(o.name)}`)}>{o.label}</a>
                </td>
                <td>
                  <code>{o.name}</code>
                </td>
                <td class="number">{Object.keys(o.fields).length}</td>
                <td class="number">{o.actions.length}</td>
                <td>{o.description ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </>
    );
  }
  return <ObjectMetadata key={name} name={name} />;
}

/** An admin-only metadata entry (permission, validation), or undefined for whoever may not read it. */
async function optionalEntry(api: Api, type: string, id: string): Promise<unknown> {
  try {
    return await api.entry(type, id);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 403 || err.status === 404 || err.status === 401)) return undefined;
    throw err;
  }
}

interface Loaded {
  object: ObjectDescriptor;
  access: ObjectAccess;
  fields: FieldDescriptor[];
  permission?: unknown;
  validation?: unknown;
}

function ObjectMetadata({ name }: { name: string }) {
  const studio = useStudio();
  const { api } = studio;
  const href = (path: string) => studio.href(path);
  const [loaded, retry] = useLoad<Loaded>(async () => {
    const [object, access] = await Promise.all([api.object(name), api.access(name)]);
    const [fields, permission, validation] = await Promise.all([
      Promise.all(object.fields.map((f) => api.field(name, f.name))),
      optionalEntry(api, 'permission', name),
      optionalEntry(api, 'validation', name),
    ]);
    return { object, access, fields, permission, validation };
  }, [name]);
  return (
    <Await loaded={loaded} what={`the metadata of ${name}`} retry={retry}>
      {({ object, access, fields, permission, validation }) => (
        <>
          <h1>{object.label}</h1>
          <dl class="meta">
            <dt>Name</dt>
            <dd>
              <code>{object.name}</code>
            </dd>
            {object.description ? (
              <>
                <dt>Description</dt>
                <dd>{object.description}</dd>
              </>
            ) : null}
            <dt>You may</dt>
            <dd>{(['read', 'create', 'edit', 'delete'] as const).filter((op) => access[op]).join(', ') || 'nothing'}</dd>
            <dt>Records</dt>
            <dd>
              <a href={href(`/o/${encodeURIComponent(object.name)}`)}>Open the list</a>
            </dd>
          </dl>
          <h2>Fields</h2>
          <div class="grid-wrap">
            <table class="grid">
              <caption class="muted">The fields of {object.label} you may read</caption>
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Properties</th>
                  <th scope="col">You may</th>
                  <th scope="col">Validations</th>
                </tr>
              </thead>
              <tbody>
                {fields.map((f) => (
                  <tr key={f.name}>
                    <td>{f.label}</td>
                    <td>
                      <code>{f.name}</code>
                    </td>
                    <td>
                      {f.type}
                      {f.multiple ? ' (multiple)' : ''}
                      {f.reference_to ? (
                        <>
                          {' → '}
                          <a href={href(`/meta/${encodeURIComponent(f.reference_to)}`)}>{f.reference_to}</a>
                        </>
                      ) : null}
                    </td>
                    <td>{properties(f)}</td>
                    <td>{access.fields[f.name]?.edit ? 'read, edit' : 'read'}</td>
                    <td>
                      {(f.validations ?? []).map((v, i) => (
                        <div key={i}>
                          <span class="tag">{v.type}</span> {v.message}
                        </div>
                      ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h2>Actions</h2>
          {object.actions.length ? (
            <ul>
              {object.actions.map((a) => (
                <li key={a.name}>
                  <strong>{a.label}</strong> (<code>{a.name}</code>, {a.type === 'record' ? 'on one record' : 'on the object'})
                  {a.description ? ` — ${a.description}` : ''}
                  {Object.keys(a.params).length ? (
                    <ul>
                      {Object.entries(a.params).map(([p, d]) => (
                        <li key={p}>
                          <code>{p}</code>: {d.type}
                          {d.required ? ', required' : ''}
                        </li>
                      ))}
                    </ul>
                  ) : null}
                </li>
              ))}
            </ul>
          ) : (
            <p>None.</p>
          )}
          <h2>Hooks</h2>
          {object.hooks.length ? (
            <ul>
              {object.hooks.map((h, i) => (
                <li key={i}>
                  <code>{h.event}</code>
                  {h.description ? ` — ${h.description}` : ''}
                </li>
              ))}
            </ul>
          ) : (
            <p>None.</p>
          )}
          {permission !== undefined ? <Source title="Permission rules" value={permission} /> : null}
          {validation !== undefined ? <Source title="Validation rules" value={validation} /> : null}
        </>
      )}
    </Await>
  );
}

function properties(f: FieldDescriptor): string {
  const out: string[] = [];
  if (f.required) out.push('required');
  if (f.unique) out.push('unique');
  if (f.readonly) out.push('read-only');
  if (f.defaultValue !== undefined) out.push(`default ${JSON.stringify(f.defaultValue)}`);
  if (f.min !== undefined) out.push(`min ${f.min}`);
  if (f.max !== undefined) out.push(`max ${f.max}`);
  if (f.max_length !== undefined) out.push(`max length ${f.max_length}`);
  if (f.options) out.push(`options: ${f.options.map((o) => optionLabel(f, o)).join(', ')}`);
  if (f.accept) out.push(`accepts ${f.accept.join(', ')}`);
  return out.join('; ');
}

function Source({ title, value }: { title: string; value: unknown }) {
  return (
    <>
      <h2>{title}</h2>
      <pre class="source" tabIndex={0}>
        {JSON.stringify(value, null, 2)}
      </pre>
    </>
  );
}
