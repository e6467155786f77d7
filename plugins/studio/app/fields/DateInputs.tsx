/** date (type=date), datetime (datetime-local, local time; ISO UTC in the API: fields/convert.ts), time (type=time). */
import { str } from './convert';
import { aria, type FieldInputProps } from './props';

function DateLike(props: FieldInputProps & { type: 'date' | 'datetime-local' | 'time' }) {
  return (
    <input
      {...aria(props)}
      type={props.type}
      step={props.type === 'date' ? undefined : 1}
      value={str(props.value)}
      readOnly={props.readOnly}
      onInput={(e) => props.onChange(e.currentTarget.value)}
    />
  );
}

export function DateInput(props: FieldInputProps) {
  return <DateLike {...props} type="date" />;
}

export function DateTimeInput(props: FieldInputProps) {
  return <DateLike {...props} type="datetime-local" />;
}

export function TimeInput(props: FieldInputProps) {
  return <DateLike {...props} type="time" />;
}
