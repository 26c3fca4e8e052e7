import { Badge } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/states";

export function cellText(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** Rows of a query preview, columns in the order of the first row; the primary key's column is marked. */
export function PreviewTable({ rows, highlight }: { rows: Record<string, unknown>[]; highlight?: string }) {
  if (rows.length === 0) return <EmptyState title="The query returned no rows" description="A model with no rows syncs nothing. Check the query's filters." />;
  const columns = Object.keys(rows[0]);
  return (
    <div className="max-h-96 overflow-auto rounded-lg border border-slate-200">
      <table className="min-w-full divide-y divide-slate-200 text-xs" aria-label="Preview of the query's rows">
        <thead className="sticky top-0 bg-slate-50">
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col" className={`whitespace-nowrap px-3 py-2 text-left font-semibold ${c === highlight ? "text-indigo-700" : "text-slate-600"}`}>
                {c}
                {/* Words, not a pictogram: read out by screen readers and the same on every system font. */}
                {c === highlight && (
                  <Badge tone="indigo" className="ml-1.5 normal-case">
                    primary key
                  </Badge>
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 bg-white">
          {rows.map((r, i) => (
            <tr key={i}>
              {columns.map((c) => (
                <td key={c} className={`max-w-xs truncate whitespace-nowrap px-3 py-1.5 font-mono ${r[c] === null ? "text-slate-400" : "text-slate-700"}`}>
                  {cellText(r[c])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
