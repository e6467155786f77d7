/** 'due_date' → 'Due Date', 'dueDate' → 'Due Date', 'isbn-13' → 'Isbn 13': the default label of a name. */
export function titleCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[_\-\s]+/)
    .filter((w) => w.length > 0)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}
