/** What every field input takes. */
import type { FieldDescriptor } from '../types';

export interface FieldInputProps {
  field: FieldDescriptor;
  /** The control's id (its <label for>); a group uses it for its fieldset. */
  id: string;
  /** The form value (fields/convert.ts). */
  value: unknown;
  onChange: (value: unknown) => void;
  /** The object the form writes (uploads name it). */
  object: string;
  readOnly?: boolean;
  invalid?: boolean;
  /** Ids of the hint and error beside the field. */
  describedBy?: string;
}

/** The ARIA attributes every input shares. */
export function aria(props: FieldInputProps) {
  return {
    id: props.id,
    name: props.field.name,
    'aria-required': props.field.required && !props.readOnly ? true : undefined,
    'aria-invalid': props.invalid ? true : undefined,
    'aria-describedby': props.describedBy || undefined,
  };
}
