/** text, email (type=email), url (type=url), phone (type=tel), and textarea. */
import { str, TEXT_INPUT_TYPES } from './convert';
import { aria, type FieldInputProps } from './props';

export function TextInput(props: FieldInputProps) {
  const { field } = props;
  return (
    <input
      {...aria(props)}
      type={(TEXT_INPUT_TYPES[field.type] ?? 'text') as 'text'}
      value={str(props.value)}
      readOnly={props.readOnly}
      minLength={field.min_length}
      maxLength={field.max_length}
      autoComplete={field.type === 'email' ? 'email' : field.type === 'phone' ? 'tel' : field.type === 'url' ? 'url' : 'off'}
      onInput={(e) => props.onChange(e.currentTarget.value)}
    />
  );
}

export function TextareaInput(props: FieldInputProps) {
  return (
    <textarea
      {...aria(props)}
      value={str(props.value)}
      readOnly={props.readOnly}
      maxLength={props.field.max_length}
      rows={4}
      onInput={(e) => props.onChange(e.currentTarget.value)}
    />
  );
}

/** A value shown in a read-only text box (auto numbers, types without an input of their own). */
export function ReadOnlyInput(props: FieldInputProps & { text: string }) {
  return <input {...aria(props)} type="text" value={props.text} readOnly />;
}
