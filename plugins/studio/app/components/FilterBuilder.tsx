/** The conditions of a list, one row each: field, operator (per field type) and value(s). */
import { operatorsFor, type BuilderCondition } from '../filters';
import { optionLabel, text } from '../format';
import type { FieldDescriptor } from '../types';

const INPUT_TYPES: Record<string, 'number' | 'date' | 'datetime-local' | 'time'> = {
  number: 'number',
  currency: 'number',
  percent: 'number',
  auto_number: 'number',
  date: 'date',
  datetime: 'datetime-local',
  time: 'time',
};

function ValueInput({
  field,
  value,
  label,
  onChange,
}: {
  field: FieldDescriptor;
  value: unknown;
  label: string;
  onChange: (v: unknown) => void;
}) {
  if (field.type === 'boolean') {
    return (
      <select aria-label={label} value={value === false ? 'false' : 'true'} onChange={(e) => onChange(e.currentTarget.value === 'true')}>
        <option value="true">Yes</option>
        <option value="false">No</option>
      </select>
    );
  }
  if (field.type === 'select') {
    return (
      <select aria-label={label} value={text(value)} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">—</option>
        {(field.options ?? []).map((o) => (
          <option key={o} value={o}>
            {optionLabel(field, o)}
          </option>
        ))}
      </select>
    );
  }
  return (
    <input
      aria-label={label}
      type={INPUT_TYPES[field.type] ?? 'text'}
      step={field.type === 'number' || field.type === 'currency' || field.type === 'percent' ? 'any' : undefined}
      value={text(value)}
      onChange={(e) => onChange(e.currentTarget.value)}
    />
  );
}

export function FilterBuilder({
  fields,
  rows,
  onChange,
}: {
  fields: FieldDescriptor[];
  rows: BuilderCondition[];
  onChange: (rows: BuilderCondition[]) => void;
}) {
  const filterable = fields.filter((f) => operatorsFor(f).length);
  const byName = new Map(filterable.map((f) => [f.name, f]));
  const update = (i: number, patch: Partial<BuilderCondition>) => onChange(rows.map((r, j) => (i === j ? { ...r, ...patch } : r)));
  const add = () => {
    const first = filterable[0];
    if (first) onChange([...rows, { field: first.name, op: operatorsFor(first)[0].id }]);
  };
  return (
    <fieldset class="filters">
      <legend>Filters</legend>
      {rows.map((row, i) => {
        const field = byName.get(row.field) ?? filterable[0];
        if (!field) return null;
        const operators = operatorsFor(field);
        const operator = operators.find((o) => o.id === row.op) ?? operators[0];
        const n = i + 1;
        const pair = Array.isArray(row.value) ? (row.value as unknown[]) : [];
        return (
          <div class="row" key={i} role="group" aria-label={`Condition ${n}`}>
            <select
              aria-label={`Field of condition ${n}`}
              value={field.name}
              onChange={(e) => {
                const next = byName.get(e.currentTarget.value);
                if (next) update(i, { field: next.name, op: operatorsFor(next)[0].id, value: undefined });
              }}
            >
              {filterable.map((f) => (
                <option key={f.name} value={f.name}>
                  {f.label}
                </option>
              ))}
            </select>
            <select
              aria-label={`Operator of condition ${n}`}
              value={operator.id}
              onChange={(e) => update(i, { op: e.currentTarget.value, value: undefined })}
            >
              {operators.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.label}
                </option>
              ))}
            </select>
            {operator.arity === 1 ? (
              <ValueInput field={field} label={`Value of condition ${n}`} value={row.value} onChange={(value) => update(i, { value })} />
            ) : null}
            {operator.arity === 2 ? (
              <>
                <ValueInput
                  field={field}
                  label={`From value of condition ${n}`}
                  value={pair[0]}
                  onChange={(v) => update(i, { value: [v, pair[1]] })}
                />
                <span>and</span>
                <ValueInput
                  field={field}
                  label={`To value of condition ${n}`}
                  value={pair[1]}
                  onChange={(v) => update(i, { value: [pair[0], v] })}
                />
              </>
            ) : null}
            {operator.arity === 'list' ? (
              <select
                multiple
                aria-label={`Values of condition ${n}`}
                onChange={(e) => update(i, { value: [...e.currentTarget.selectedOptions].map((o) => o.value) })}
              >
                {(field.options ?? []).map((o) => (
                  <option key={o} value={o} selected={Array.isArray(row.value) && row.value.includes(o)}>
                    {optionLabel(field, o)}
                  </option>
                ))}
              </select>
            ) : null}
            <button type="button" aria-label={`Remove condition ${n}`} onClick={() => onChange(rows.filter((_, j) => j !== i))}>
              Remove
            </button>
          </div>
        );
      })}
      <button type="button" onClick={add} disabled={!filterable.length}>
        Add condition
      </button>
    </fieldset>
  );
}
