/**
 * Decimal columns (docs/adr/0035): a decimal field (the kernel's isDecimalField: currency, or a
 * number / percent declaring `scale`) is stored as DECIMAL(p, s) where the engine has it. Every
 * such column keeps 35 digits before the point, the most MySQL allows with its largest scale (30);
 * a currency field without `scale` gets that largest scale, so the values the engine accepts are
 * stored as given, never rounded.
 */
import { isDecimalField, type FieldDefinition } from '../../kernel';

/** Digits before the decimal point of every decimal column. */
export const DECIMAL_INTEGER_DIGITS = 35;
/** The largest scale: MySQL's DECIMAL limit, and the scale of a currency field that declares none. */
export const MAX_DECIMAL_SCALE = 30;

export interface DecimalSpec {
  precision: number;
  scale: number;
}

/** The DECIMAL(p, s) a field is stored as; undefined for fields that are not decimal. */
export function decimalSpec(field: FieldDefinition | undefined): DecimalSpec | undefined {
  if (!isDecimalField(field)) return undefined;
  const scale = field!.scale ?? MAX_DECIMAL_SCALE;
  return { precision: DECIMAL_INTEGER_DIGITS + scale, scale };
}

/** True when a column of spec `have` holds every value of spec `want` (no widening needed). */
export function holds(have: DecimalSpec, want: DecimalSpec): boolean {
  return have.scale >= want.scale && have.precision - have.scale >= want.precision - want.scale;
}

/** Digits after the point of a number's shortest representation (1.5e-7 → 8). */
function decimalPlaces(n: number): number {
  const [mantissa, exp] = String(Math.abs(n)).split('e');
  const fraction = mantissa.split('.')[1] ?? '';
  return Math.max(0, fraction.length - (exp ? Number(exp) : 0));
}

/** Why a number cannot be stored exactly in a column of this spec; undefined when it can. */
export function decimalMisfit(value: number, spec: DecimalSpec): string | undefined {
  const integerDigits = spec.precision - spec.scale;
  if (Math.abs(value) < 10 ** integerDigits && decimalPlaces(value) <= spec.scale) return undefined;
  return `cannot be stored exactly: at most ${integerDigits} digits before the decimal point and ${spec.scale} after`;
}
