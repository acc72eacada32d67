// A list shown a page at a time: past a few hundred rows a table is slow to
// draw and useless to read. Filtering happens before paging.
import { useState, type ReactNode } from "react";

const PAGE_SIZE = 50;

function pageOf<T>(items: T[], page: number, size = PAGE_SIZE): T[] {
  return items.slice(page * size, (page + 1) * size);
}

export function Paged<T>({
  items,
  children,
  size = PAGE_SIZE,
  label,
}: {
  items: T[];
  children: (rows: T[]) => ReactNode;
  size?: number;
  label: string;
}) {
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(items.length / size));
  const current = Math.min(page, pages - 1);
  return (
    <>
      {children(pageOf(items, current, size))}
      {pages > 1 && (
        <nav className="pager" aria-label={`${label} pages`}>
          <button onClick={() => setPage(current - 1)} disabled={current === 0}>
            Previous
          </button>
          <span>
            Page {current + 1} of {pages} ({items.length} {label})
          </span>
          <button onClick={() => setPage(current + 1)} disabled={current === pages - 1}>
            Next
          </button>
        </nav>
      )}
    </>
  );
}
