// A column header that orders the list by its field: first click newest/highest first for time,
// A→Z for text; a second click reverses. aria-sort tells a screen reader the current order.
export function SortHeader({
  label,
  field,
  sort,
  onSort,
  className,
}: {
  label: string;
  field: string;
  /** the list's current `field.asc|desc` */
  sort: string;
  onSort: (sort: string) => void;
  className?: string;
}) {
  const [current, dir] = sort.split('.');
  const active = current === field;
  const first = field === 'timestamp' ? 'desc' : 'asc';
  const next = active ? (dir === 'asc' ? 'desc' : 'asc') : first;
  return (
    <th scope="col" className={className} aria-sort={active ? (dir === 'asc' ? 'ascending' : 'descending') : undefined}>
      <button type="button" className="sort" onClick={() => onSort(`${field}.${next}`)}>
        {label}
        <span aria-hidden="true">{active ? (dir === 'asc' ? ' ▲' : ' ▼') : ' ↕'}</span>
        <span className="visually-hidden">, sort {next === 'asc' ? 'ascending' : 'descending'}</span>
      </button>
    </th>
  );
}
