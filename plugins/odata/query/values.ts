/** Small value readers shared by the options. */

/** A non-negative safe integer written in digits only, or undefined. */
export function nonNegativeInteger(raw: string): number | undefined {
  if (!/^\d+$/.test(raw)) return undefined;
  const value = Number(raw);
  return Number.isSafeInteger(value) ? value : undefined;
}
