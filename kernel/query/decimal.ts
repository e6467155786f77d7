/**
 * Exact money arithmetic, the reference for every driver. A decimal field (currency, or a number or
 * percent that declares `scale`) holds decimal values: each stored number stands for its shortest
 * decimal representation (0.1 is 0.1), so sums are exact (0.1 + 0.2 = 0.3) and an average is the
 * exact sum divided by the count, rounded once. Values stay JSON numbers; only the arithmetic
 * between them is decimal.
 */
import Decimal from 'decimal.js';
import type { FieldDefinition } from '../metadata/types';

// Enough digits that adding any two doubles is exact (they span about 630 digits).
const Exact = Decimal.clone({ precision: 1000 });
// An average needs only what a double can show; 40 digits, then one rounding to the double.
const Quotient = Decimal.clone({ precision: 40 });

/** True for fields whose values are decimals: currency, and number / percent with a declared scale (never `multiple`). */
export function isDecimalField(field: FieldDefinition | undefined): boolean {
  if (!field || field.multiple) return false;
  return field.type === 'currency' || ((field.type === 'number' || field.type === 'percent') && field.scale !== undefined);
}

/**
 * A running exact sum. Takes JS numbers and decimal strings (what databases return); nulls and
 * anything that is not a finite number are skipped.
 */
export class DecimalSum {
  private sum: Decimal | undefined;
  private n = 0;

  add(value: unknown): void {
    const d = toDecimal(value);
    if (!d) return;
    this.sum = this.sum ? this.sum.plus(d) : d;
    this.n += 1;
  }

  /** How many values were added. */
  get count(): number {
    return this.n;
  }

  /** The sum as a decimal string; undefined when nothing was added. */
  get value(): string | undefined {
    return this.sum?.toString();
  }
}

function toDecimal(value: unknown): Decimal | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? new Exact(value) : undefined;
  if (typeof value !== 'string' && typeof value !== 'bigint') return undefined;
  try {
    const d = new Exact(value.toString());
    return d.isFinite() ? d : undefined;
  } catch {
    return undefined;
  }
}

/** The exact sum of numbers (see DecimalSum) as a decimal string; undefined when there was nothing to add. */
export function decimalSum(values: Iterable<unknown>): string | undefined {
  const sum = new DecimalSum();
  for (const v of values) sum.add(v);
  return sum.value;
}

/** An exact decimal sum (decimalSum's string, or a database's) divided by a count, as the nearest number. */
export function decimalAverage(sum: string | number, count: number): number {
  return new Quotient(new Exact(sum)).div(count).toNumber();
}
