/** boolean: a checkbox. */
import { aria, type FieldInputProps } from './props';

export function BooleanInput(props: FieldInputProps) {
  return (
    <input
      {...aria(props)}
      aria-required={undefined}
      type="checkbox"
      checked={props.value === true}
      disabled={props.readOnly}
      onChange={(e) => props.onChange(e.currentTarget.checked)}
    />
  );
}
