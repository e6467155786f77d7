/**
 * A CSV cell is text: each is turned into the value its field takes before the engine sees it,
 * so that the engine's own checks judge the value (a cell that does not fit stays as written and
 * is refused with the field's name). An empty cell is no value.
 */
import type { FieldDefinition, ObjectDefinition } from '../../kernel';

const NUMBERS = new Set(['number', 'currency', 'percent', 'auto_number']);
const JSON_TEXT = new Set(['json', 'object', 'file', 'image']);

export function fromCsv(def: ObjectDefinition, cells: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, cell] of Object.entries(cells)) {
    if (cell === '' || cell === undefined) continue;
    const field = def.fields[name];
    out[name] = field && typeof cell === 'string' ? cellValue(field, cell) : cell;
  }
  return out;
}

function cellValue(field: FieldDefinition, cell: string): unknown {
  if (field.multiple || JSON_TEXT.has(field.type)) return jsonOr(cell);
  if (NUMBERS.has(field.type)) {
    const n = Number(cell);
    return cell.trim() !== '' && Number.isFinite(n) ? n : cell;
  }
  if (field.type === 'boolean') {
    const text = cell.trim().toLowerCase();
    if (['true', '1', 'yes'].includes(text)) return true;
    if (['false', '0', 'no'].includes(text)) return false;
  }
  return cell;
}

function jsonOr(cell: string): unknown {
  try {
    return JSON.parse(cell);
  } catch {
    return cell;
  }
}
