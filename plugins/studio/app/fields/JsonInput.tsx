/** json / object: JSON typed in a textarea, parsed on save (a parse error is shown beside the field). */
import { str } from './convert';
import { aria, type FieldInputProps } from './props';

export function JsonInput(props: FieldInputProps) {
  return (
    <textarea
      {...aria(props)}
      class="code"
      spellcheck={false}
      rows={Math.min(12, Math.max(3, str(props.value).split('\n').length + 1))}
      value={str(props.value)}
      readOnly={props.readOnly}
      onInput={(e) => props.onChange(e.currentTarget.value)}
    />
  );
}
