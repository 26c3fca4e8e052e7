"use client";
// A react-table wrapper for server-side pagination and sorting: the page, page size and sort order
// live in the caller (and go to the API); the table only renders what the API returned.
import {
  flexRender,
  getCoreRowModel,
  getExpandedRowModel,
  useReactTable,
  type ColumnDef,
  type Row,
  type RowData,
  type SortingState,
} from "@tanstack/react-table";
import { Fragment } from "react";
import { cn } from "./cn";
import { ErrorState, LoadingState } from "./states";

declare module "@tanstack/react-table" {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- the generics must match react-table's own declaration
  interface ColumnMeta<TData extends RowData, TValue> {
    /**
     * Classes of the column's header and cells: its share of the width (`w-[18%]`), or when it
     * shows (`hidden xl:table-cell`). Columns without a width share what is left equally.
     */
    className?: string;
  }
}

/**
 * Puts a cell's full text in its title: cells are cut to their column's width with an ellipsis
 * (the table never scrolls sideways), and the title is how the rest stays readable.
 */
const titleFromText = (el: HTMLElement | null) => {
  if (el) el.title = el.textContent?.trim() ?? "";
};

export interface PageState {
  page: number;
  perPage: number;
  totalPages?: number;
  totalCount?: number;
}

export function DataTable<T>({
  columns,
  data,
  isLoading,
  error,
  onRetry,
  empty,
  pagination,
  onPageChange,
  sorting,
  onSortingChange,
  getRowId,
  renderExpanded,
  label,
}: {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- columns of any value type, as react-table's own helpers produce
  columns: ColumnDef<T, any>[];
  data: T[] | undefined;
  isLoading?: boolean;
  error?: unknown;
  onRetry?: () => void;
  empty: React.ReactNode;
  pagination?: PageState;
  onPageChange?: (page: number) => void;
  sorting?: SortingState;
  onSortingChange?: (sorting: SortingState) => void;
  getRowId?: (row: T) => string;
  renderExpanded?: (row: Row<T>) => React.ReactNode;
  /** Accessible name of the table. */
  label: string;
}) {
  // eslint-disable-next-line react-hooks/incompatible-library -- react-table returns non-memoisable functions by design
  const table = useReactTable({
    data: data ?? [],
    columns,
    getRowId,
    state: { sorting: sorting ?? [] },
    manualSorting: true,
    manualPagination: true,
    enableSortingRemoval: false,
    onSortingChange: (updater) => {
      const nextSorting = typeof updater === "function" ? updater(sorting ?? []) : updater;
      onSortingChange?.(nextSorting);
    },
    getCoreRowModel: getCoreRowModel(),
    getExpandedRowModel: getExpandedRowModel(),
    getRowCanExpand: () => Boolean(renderExpanded),
  });

  if (error) return <ErrorState error={error} onRetry={onRetry} />;
  if (isLoading && !data) return <LoadingState />;
  if (data && data.length === 0 && (pagination?.page ?? 1) <= 1) return <>{empty}</>;

  return (
    <div className="overflow-hidden rounded-lg border border-slate-200 bg-white shadow-sm" data-testid="table-container">
      {/* Fixed layout: the table is as wide as its container at every viewport, columns take their
          declared share, and what does not fit is cut with an ellipsis (full text in the title). */}
      <div>
        <table className="w-full table-fixed divide-y divide-slate-200 text-sm" aria-label={label} aria-busy={isLoading || undefined}>
          <thead className="bg-slate-50">
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header) => {
                  const canSort = Boolean(onSortingChange) && header.column.getCanSort();
                  const dir = header.column.getIsSorted();
                  return (
                    <th
                      key={header.id}
                      scope="col"
                      aria-sort={dir === "asc" ? "ascending" : dir === "desc" ? "descending" : undefined}
                      ref={(el) => titleFromText(el)}
                      className={cn(
                        // Headings wrap rather than being cut (issue 35: "SUCCEEDED" read "SUCCE…" at 1280).
                        "whitespace-normal wrap-break-word px-4 py-2.5 text-left align-bottom text-xs font-semibold uppercase tracking-wide text-slate-500",
                        header.column.columnDef.meta?.className,
                      )}
                    >
                      {header.isPlaceholder ? null : canSort ? (
                        <button
                          type="button"
                          onClick={header.column.getToggleSortingHandler()}
                          className="inline-flex items-center gap-1 rounded uppercase hover:text-slate-900 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
                        >
                          {flexRender(header.column.columnDef.header, header.getContext())}
                          <span aria-hidden className="text-slate-400">
                            {dir === "asc" ? "▲" : dir === "desc" ? "▼" : "↕"}
                          </span>
                        </button>
                      ) : (
                        flexRender(header.column.columnDef.header, header.getContext())
                      )}
                    </th>
                  );
                })}
              </tr>
            ))}
          </thead>
          <tbody className={cn("divide-y divide-slate-100", isLoading && "opacity-60")}>
            {table.getRowModel().rows.length === 0 && (
              <tr>
                <td colSpan={columns.length} className="px-4 py-8 text-center text-slate-500">
                  No rows on this page.
                </td>
              </tr>
            )}
            {table.getRowModel().rows.map((row) => (
              <Fragment key={row.id}>
                <tr className="hover:bg-slate-50">
                  {row.getVisibleCells().map((cell) => (
                    <td
                      key={cell.id}
                      ref={(el) => titleFromText(el)}
                      className={cn("truncate px-4 py-2.5 align-middle text-slate-700", cell.column.columnDef.meta?.className)}
                    >
                      {flexRender(cell.column.columnDef.cell, cell.getContext())}
                    </td>
                  ))}
                </tr>
                {row.getIsExpanded() && renderExpanded && (
                  <tr className="bg-slate-50/70">
                    <td colSpan={columns.length} className="px-4 py-4">
                      {renderExpanded(row)}
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      </div>
      {pagination && onPageChange && <Pager pagination={pagination} onPageChange={onPageChange} />}
    </div>
  );
}

function Pager({ pagination, onPageChange }: { pagination: PageState; onPageChange: (page: number) => void }) {
  const { page, totalPages = 1, totalCount } = pagination;
  const btn =
    "rounded-md border border-slate-300 bg-white px-3 py-1 text-sm font-medium text-slate-700 hover:bg-slate-50 disabled:opacity-40 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500";
  return (
    <nav aria-label="Pagination" className="flex items-center justify-between border-t border-slate-200 bg-slate-50 px-4 py-2 text-sm text-slate-600">
      <span>
        Page {page} of {totalPages}
        {totalCount !== undefined && <> · {totalCount} total</>}
      </span>
      <div className="flex gap-2">
        <button type="button" className={btn} disabled={page <= 1} onClick={() => onPageChange(page - 1)}>
          Previous
        </button>
        <button type="button" className={btn} disabled={page >= totalPages} onClick={() => onPageChange(page + 1)}>
          Next
        </button>
      </div>
    </nav>
  );
}
