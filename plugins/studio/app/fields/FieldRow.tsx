/**
 * One field of a form: its <label>, the input for its type, its description and its error. The
 * error is tied to the input (aria-invalid, aria-describedby); a required field is marked in
 * text (the label's " *", class "required") and to assistive technology (aria-required).
 */
import { displayValue } from '../format';
import type { FieldDescriptor } from '../types';
import { BooleanInput } from './BooleanInput';
import { FILE_TYPES, JSON_TYPES, LOOKUP_TYPES, NUMBER_TYPES, TEXT_INPUT_TYPES } from './convert';
import { DateInput, DateTimeInput, TimeInput } from './DateInputs';
import { FileInput } from './FileInput';
import { JsonInput } from './JsonInput';
import { LookupInput } from './LookupInput';
import { NumberInput } from './NumberInput';
import type { FieldInputProps } from './props';
import { MultiSelectInput, SelectInput } from './SelectInput';
import { ReadOnlyInput, TextareaInput, TextInput } from './TextInput';

/** The input for a field's type. */
export function FieldInput(props: FieldInputProps) {
  const { type } = props.field;
  if (TEXT_INPUT_TYPES[type]) return <TextInput {...props} />;
  if (type === 'textarea') return <TextareaInput {...props} />;
  if (NUMBER_TYPES.has(type)) return <NumberInput {...props} />;
  if (type === 'boolean') return <BooleanInput {...props} />;
  if (type === 'date') return <DateInput {...props} />;
  if (type === 'datetime') return <DateTimeInput {...props} />;
  if (type === 'time') return <TimeInput {...props} />;
  if (type === 'select')
    return props.field.multiple ? <MultiSelectInput {...props} legend={props.field.label} /> : <SelectInput {...props} />;
  if (LOOKUP_TYPES.has(type)) return <LookupInput {...props} />;
  if (JSON_TYPES.has(type)) return <JsonInput {...props} />;
  if (FILE_TYPES.has(type)) return <FileInput {...props} />;
  return <ReadOnlyInput {...props} readOnly text={displayValue(props.field, props.value)} />;
}

export interface FieldRowProps {
  field: FieldDescriptor;
  value: unknown;
  onChange: (value: unknown) => void;
  object: string;
  readOnly?: boolean;
  error?: string;
  /** Prefix of the element ids (several forms on a page). */
  idPrefix?: string;
}

export function fieldId(name: string, prefix = 'f'): string {
  return `${prefix}-${name.replace(/[^\w-]/g, '_')}`;
}

export function FieldRow({ field, value, onChange, object, readOnly, error, idPrefix = 'f' }: FieldRowProps) {
  const id = fieldId(field.name, idPrefix);
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const hint = field.description;
  const describedBy = [hint ? hintId : '', error ? errorId : ''].filter(Boolean).join(' ');
  const isGroup = field.type === 'select' && field.multiple;
  const required = field.required && !readOnly;
  return (
    <div class={`field field-${field.type}${readOnly ? ' readonly' : ''}${error ? ' has-error' : ''}`} data-field={field.name}>
      {isGroup ? (
        <span class="label" aria-hidden="true" />
      ) : (
        <label for={id} class={required ? 'required' : undefined}>
          {field.label}
          {readOnly ? <span class="visually-hidden"> (read-only)</span> : null}
        </label>
      )}
      <div class="control">
        <FieldInput
          field={field}
          id={id}
          value={value}
          onChange={onChange}
          object={object}
          readOnly={readOnly}
          invalid={Boolean(error)}
          describedBy={describedBy}
        />
        {hint ? (
          <p id={hintId} class="hint muted">
            {hint}
          </p>
        ) : null}
        {error ? (
          <p id={errorId} class="field-error">
            <span aria-hidden="true">⚠ </span>
            {error}
          </p>
        ) : null}
      </div>
    </div>
  );
}
