/** number, currency, percent: type=number, the step from `scale` (currency: cents), min/max from the field. */
import { str } from './convert';
import { aria, type FieldInputProps } from './props';

export function numberStep(scale: number | undefined, type: string): string {
  if (scale !== undefined && scale >= 0) return scale === 0 ? '1' : `0.${'0'.repeat(scale - 1)}1`;
  return type === 'currency' ? '0.01' : 'any';
}

export function NumberInput(props: FieldInputProps) {
  const { field } = props;
  const unit = field.type === 'percent' ? '%' : undefined;
  const input = (
    <input
      {...aria(props)}
      type="number"
      inputMode="decimal"
      step={numberStep(field.scale, field.type)}
      min={field.min}
      max={field.max}
      value={str(props.value)}
      readOnly={props.readOnly}
      onInput={(e) => props.onChange(e.currentTarget.value)}
    />
  );
  return unit ? (
    <span class="with-unit">
      {input} <span aria-hidden="true">{unit}</span>
    </span>
  ) : (
    input
  );
}
