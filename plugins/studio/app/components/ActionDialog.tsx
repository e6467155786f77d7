/**
 * Runs an action (a record action with `id`, a global one without) in a dialog: a form for its
 * params (the same inputs as a record's fields), their validation errors beside them, and the
 * result — its `message` when it has one, else the result as JSON.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { fromForm, isEmptyForm, paramField, toForm, type FormValues } from '../fields/convert';
import { FieldRow } from '../fields/FieldRow';
import { useStudio } from '../studio';
import type { ActionDescriptor } from '../types';
import { Dialog } from './Dialog';

export interface ActionDialogProps {
  object: string;
  action: ActionDescriptor;
  /** The record of a record action; undefined for a global action. */
  id?: string;
  onClose: () => void;
  /** Called after the action ran (e.g. to reload what it changed). */
  onDone?: (result: unknown) => void;
}

type Outcome = { kind: 'done'; result: unknown } | { kind: 'error'; error: Error; fields: Record<string, string> };

function resultText(result: unknown): { message?: string; json?: string } {
  if (result && typeof result === 'object' && typeof (result as { message?: unknown }).message === 'string') {
    return { message: (result as { message: string }).message };
  }
  if (typeof result === 'string') return { message: result };
  if (result && typeof result === 'object') {
    const { ['@type']: _type, ...rest } = result as Record<string, unknown>;
    void _type;
    return { json: JSON.stringify(rest, null, 2) };
  }
  return { json: JSON.stringify(result, null, 2) };
}

export function ActionDialog({ object, action, id, onClose, onDone }: ActionDialogProps) {
  const { api } = useStudio();
  const params = useMemo(() => Object.entries(action.params ?? {}).map(([name, p]) => paramField(name, p)), [action]);
  const [values, setValues] = useState<FormValues>(() => Object.fromEntries(params.map((f) => [f.name, toForm(f, undefined)])));
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>();
  const resultRef = useRef<HTMLDivElement>(null);
  const prefix = `action-${action.name.replace(/\W+/g, '_')}`;

  useEffect(() => {
    if (outcome) resultRef.current?.focus();
  }, [outcome]);

  async function run(e: Event) {
    e.preventDefault();
    const input: Record<string, unknown> = {};
    const errors: Record<string, string> = {};
    for (const f of params) {
      const value = values[f.name];
      if (isEmptyForm(value)) {
        if (f.required && f.type !== 'boolean') errors[f.name] = 'is required';
        if (f.type !== 'boolean') continue;
      }
      try {
        input[f.name] = fromForm(f, value);
      } catch (err) {
        errors[f.name] = (err as Error).message;
      }
    }
    if (Object.keys(errors).length) {
      setOutcome({ kind: 'error', error: new Error('Some values need attention.'), fields: errors });
      return;
    }
    setBusy(true);
    try {
      const result = await api.action(object, action.name, id, input);
      setOutcome({ kind: 'done', result });
      onDone?.(result);
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      setOutcome({ kind: 'error', error, fields: err instanceof ApiError ? err.fieldErrors : {} });
    } finally {
      setBusy(false);
    }
  }

  const fieldErrors = outcome?.kind === 'error' ? outcome.fields : {};
  const done = outcome?.kind === 'done' ? resultText(outcome.result) : undefined;
  const unplaced = Object.entries(fieldErrors).filter(([name]) => !params.some((p) => p.name === name));
  return (
    <Dialog title={action.label} onClose={onClose}>
      {action.description ? <p class="muted">{action.description}</p> : null}
      {done ? (
        <div class="alert ok" role="status" tabIndex={-1} ref={resultRef}>
          <p>
            <strong>Done.</strong> {done.message ?? null}
          </p>
          {done.json !== undefined ? <pre class="result">{done.json}</pre> : null}
        </div>
      ) : null}
      {outcome?.kind === 'error' ? (
        <div class="alert error" role="alert" tabIndex={-1} ref={resultRef}>
          <p>
            {outcome.error instanceof ApiError ? <strong>{outcome.error.code}: </strong> : null}
            {outcome.error.message}
          </p>
          {unplaced.length ? (
            <ul>
              {unplaced.map(([name, message]) => (
                <li key={name}>
                  {name}: {message}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <form class="form action-form" onSubmit={(e) => void run(e)} noValidate aria-label={`${action.label} parameters`}>
        {params.map((f) => (
          <FieldRow
            key={f.name}
            field={f}
            object={object}
            idPrefix={prefix}
            value={values[f.name]}
            readOnly={Boolean(done)}
            error={fieldErrors[f.name]}
            onChange={(v) => setValues((current) => ({ ...current, [f.name]: v }))}
          />
        ))}
        {!params.length && !done ? <p class="span-all">This action takes no parameters.</p> : null}
        <div class="buttons span-all">
          {done ? null : (
            <button type="submit" class="primary" disabled={busy}>
              {busy ? 'Running…' : `Run ${action.label}`}
            </button>
          )}
          <button type="button" onClick={onClose} autoFocus={Boolean(done)}>
            {done ? 'Close' : 'Cancel'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
