/**
 * file / image: an <input type=file> whose files are uploaded at once (File API, with the object
 * and field so their limits are checked); the value is the returned attachment (an array of them
 * when `multiple`). Each attachment links to its URL, images with a thumbnail, and can be removed.
 */
import { useState } from 'preact/hooks';
import { attachments } from '../format';
import { useStudio } from '../studio';
import type { Attachment } from '../types';
import { aria, type FieldInputProps } from './props';

function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes)) return '';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function FileInput(props: FieldInputProps) {
  const { api } = useStudio();
  const { field } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const current = attachments(props.value);
  const errorId = `${props.id}-upload-error`;

  async function upload(input: HTMLInputElement) {
    const files = [...(input.files ?? [])];
    if (!files.length) return;
    setBusy(true);
    setError(undefined);
    const uploaded: Attachment[] = [];
    try {
      for (const file of files) uploaded.push(await api.upload(file, props.object, field.name));
    } catch (err) {
      setError(`${(err as Error).message}`);
    } finally {
      setBusy(false);
      input.value = '';
    }
    if (!uploaded.length) return;
    props.onChange(field.multiple ? [...current, ...uploaded] : uploaded[uploaded.length - 1]);
  }

  function remove(index: number) {
    if (field.multiple) props.onChange(current.filter((_, i) => i !== index));
    else props.onChange(null);
  }

  const describedBy = [props.describedBy, error ? errorId : ''].filter(Boolean).join(' ');
  if (props.readOnly) {
    return (
      <output id={props.id} class="files" aria-describedby={props.describedBy || undefined}>
        {current.length
          ? current.map((a, i) => (
              <span key={a.id ?? `${a.url}-${i}`} class="attachment">
                {field.type === 'image' || a.type?.startsWith('image/') ? (
                  <img class="thumb" src={a.thumbnail_url ?? a.url} alt={a.name} />
                ) : null}{' '}
                <a href={a.url} target="_blank" rel="noopener">
                  {a.name}
                </a>{' '}
                <span class="muted">{formatSize(a.size)}</span>
              </span>
            ))
          : 'No file'}
      </output>
    );
  }
  return (
    <div class="files">
      {current.length ? (
        <ul class="attachments">
          {current.map((a, i) => (
            <li key={a.id ?? `${a.url}-${i}`}>
              {field.type === 'image' || a.type?.startsWith('image/') ? (
                <img class="thumb" src={a.thumbnail_url ?? a.url} alt={a.name} />
              ) : null}{' '}
              <a href={a.url} target="_blank" rel="noopener">
                {a.name}
              </a>{' '}
              <span class="muted">{formatSize(a.size)}</span>{' '}
              <button type="button" class="small" onClick={() => remove(i)} aria-label={`Remove ${a.name}`}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <input
        {...aria(props)}
        aria-required={props.field.required && !current.length ? true : undefined}
        aria-describedby={describedBy || undefined}
        type="file"
        multiple={field.multiple}
        accept={field.accept?.join(',') ?? (field.type === 'image' ? 'image/*' : undefined)}
        disabled={busy}
        onChange={(e) => void upload(e.currentTarget)}
      />
      {busy ? (
        <span class="muted" role="status">
          Uploading…
        </span>
      ) : null}
      {error ? (
        <p id={errorId} class="field-error" role="alert">
          Upload failed: {error}
        </p>
      ) : null}
    </div>
  );
}
