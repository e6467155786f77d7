/**
 * lookup / master_detail: an ARIA combobox (editable, list autocomplete). Typing searches the
 * related object's name field (`contains`, top 10, debounced); the value is the chosen record's
 * id, the box shows its name. Clearable. Without read access to the related object (it is not in
 * the user's objects) the id is shown as is.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { nameField, recordName } from '../format';
import { useStudio } from '../studio';
import type { DataRecord } from '../types';
import { aria, type FieldInputProps } from './props';

const DEBOUNCE_MS = 250;

export function LookupInput(props: FieldInputProps) {
  const studio = useStudio();
  const { field } = props;
  const related = field.reference_to ? studio.objects.get(field.reference_to) : undefined;
  const labelField = nameField(related);
  const id = typeof props.value === 'string' && props.value ? props.value : undefined;

  const [name, setName] = useState<string>(); // the chosen record's name
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  const [options, setOptions] = useState<DataRecord[]>([]);
  const [active, setActive] = useState(-1);
  const [searching, setSearching] = useState(false);
  const [failure, setFailure] = useState<string>();
  const timer = useRef<number | undefined>(undefined);
  const query = useRef(0);
  const listId = `${props.id}-list`;

  // The name of the current value.
  useEffect(() => {
    if (!id) {
      setName(undefined);
      setText('');
      return;
    }
    if (!related || !labelField) {
      setName(id);
      setText(id);
      return;
    }
    let current = true;
    studio.api.find(related.name, { filters: [['id', '=', id]], fields: ['id', labelField], top: 1 }).then(
      ({ items }) => {
        if (!current) return;
        const n = items[0] ? recordName(items[0], related) : id;
        setName(n);
        setText(n);
      },
      () => {
        if (current) {
          setName(id);
          setText(id);
        }
      },
    );
    return () => {
      current = false;
    };
  }, [id, related?.name]);

  useEffect(() => () => window.clearTimeout(timer.current), []);

  function search(term: string) {
    window.clearTimeout(timer.current);
    if (!related || !labelField) return;
    timer.current = window.setTimeout(() => {
      const mine = ++query.current;
      setSearching(true);
      studio.api
        .find(related.name, {
          filters: term.trim() ? [[labelField, 'contains', term.trim()]] : undefined,
          fields: ['id', labelField],
          sort: [[labelField, 'asc']],
          top: 10,
        })
        .then(
          ({ items }) => {
            if (mine !== query.current) return;
            setOptions(items);
            setActive(items.length ? 0 : -1);
            setFailure(undefined);
            setOpen(true);
          },
          (err: Error) => {
            if (mine !== query.current) return;
            setOptions([]);
            setFailure(err.message);
            setOpen(true);
          },
        )
        .finally(() => mine === query.current && setSearching(false));
    }, DEBOUNCE_MS);
  }

  function choose(record: DataRecord) {
    const n = recordName(record, related);
    setName(n);
    setText(n);
    setOpen(false);
    setActive(-1);
    if (record.id !== id) props.onChange(record.id);
  }

  function clear() {
    setText('');
    setName(undefined);
    setOpen(false);
    props.onChange(null);
  }

  function close() {
    window.clearTimeout(timer.current);
    query.current++;
    setOpen(false);
    setActive(-1);
    setSearching(false);
  }

  function onKeyDown(e: KeyboardEvent) {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!open) {
        search(text === name ? '' : text);
        return;
      }
      if (!options.length) return;
      const step = e.key === 'ArrowDown' ? 1 : -1;
      setActive((a) => (a + step + options.length) % options.length);
    } else if (e.key === 'Enter') {
      if (open && active >= 0 && options[active]) {
        e.preventDefault();
        choose(options[active]);
      }
    } else if (e.key === 'Escape') {
      if (open) {
        e.preventDefault();
        e.stopPropagation();
        close();
      } else if (text !== (name ?? '')) setText(name ?? '');
    }
  }

  function onBlur() {
    // A click on an option lands after the blur: let it.
    window.setTimeout(() => {
      close();
      if (text.trim() === '' && id) props.onChange(null);
      else setText(name ?? '');
    }, 150);
  }

  if (props.readOnly) {
    const target = related && id ? studio.href(`/o/${encodeURIComponent(related.name)}/r/${encodeURIComponent(id)}`) : undefined;
    return (
      <span class="lookup-readonly">
        <input {...aria(props)} type="text" value={name ?? id ?? ''} readOnly />
        {target ? (
          <>
            {' '}
            <a href={target}>
              Open<span class="visually-hidden"> {name ?? id}</span>
            </a>
          </>
        ) : null}
      </span>
    );
  }

  if (!related || !labelField) {
    return <input {...aria(props)} type="text" value={id ?? ''} onInput={(e) => props.onChange(e.currentTarget.value || null)} />;
  }

  const optionId = (i: number) => `${props.id}-opt-${i}`;
  return (
    <div class="combobox">
      <input
        {...aria(props)}
        type="text"
        role="combobox"
        autoComplete="off"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={open && active >= 0 ? optionId(active) : undefined}
        placeholder={`Search ${related.label}…`}
        value={text}
        onInput={(e) => {
          setText(e.currentTarget.value);
          search(e.currentTarget.value);
        }}
        onFocus={(e) => e.currentTarget.select()}
        onKeyDown={onKeyDown}
        onBlur={onBlur}
      />
      {id ? (
        <button type="button" class="small" onClick={clear} aria-label={`Clear ${field.label}`}>
          Clear
        </button>
      ) : null}
      <ul id={listId} role="listbox" aria-label={`${related.label} matches`} hidden={!open}>
        {options.map((o, i) => (
          <li
            key={o.id}
            id={optionId(i)}
            role="option"
            aria-selected={i === active}
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => choose(o)}
          >
            {recordName(o, related)}
          </li>
        ))}
        {open && !options.length ? (
          <li role="option" aria-disabled="true" aria-selected={false} class="muted">
            {failure ? `Search failed: ${failure}` : searching ? 'Searching…' : 'No matches'}
          </li>
        ) : null}
      </ul>
    </div>
  );
}
