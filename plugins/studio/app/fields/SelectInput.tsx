/** select: a <select> with the options' labels; multiple: a group of checkboxes in a fieldset. */
import type { ComponentChildren } from 'preact';
import { optionLabel } from '../format';
import { str } from './convert';
import { aria, type FieldInputProps } from './props';

export function SelectInput(props: FieldInputProps) {
  const { field } = props;
  const value = str(props.value);
  const options = field.options ?? [];
  // A value the options do not list (an old one) is still shown.
  const all = value && !options.includes(value) ? [...options, value] : options;
  return (
    <select {...aria(props)} value={value} disabled={props.readOnly} onChange={(e) => props.onChange(e.currentTarget.value)}>
      <option value="">{field.required ? 'Choose…' : '—'}</option>
      {all.map((o) => (
        <option key={o} value={o}>
          {optionLabel(field, o)}
        </option>
      ))}
    </select>
  );
}

/** The group's legend is the field's label: FieldRow renders no <label> for it. */
export function MultiSelectInput(props: FieldInputProps & { legend: ComponentChildren }) {
  const { field } = props;
  const selected = Array.isArray(props.value) ? (props.value as string[]) : [];
  const options = [...(field.options ?? []), ...selected.filter((v) => !field.options?.includes(v))];
  const toggle = (option: string, on: boolean) => {
    const next = on ? [...selected, option] : selected.filter((v) => v !== option);
    props.onChange(options.filter((o) => next.includes(o)));
  };
  return (
    <fieldset
      id={props.id}
      class="choices"
      aria-required={field.required && !props.readOnly ? true : undefined}
      aria-invalid={props.invalid ? true : undefined}
      aria-describedby={props.describedBy || undefined}
      disabled={props.readOnly}
    >
      <legend class={field.required ? 'required' : undefined}>{props.legend}</legend>
      {options.map((o, i) => (
        <label key={o} for={`${props.id}-${i}`}>
          <input
            id={`${props.id}-${i}`}
            type="checkbox"
            name={field.name}
            value={o}
            checked={selected.includes(o)}
            onChange={(e) => toggle(o, e.currentTarget.checked)}
          />{' '}
          {optionLabel(field, o)}
        </label>
      ))}
    </fieldset>
  );
}
