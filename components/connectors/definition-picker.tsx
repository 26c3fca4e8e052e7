"use client";
// The connector gallery of the "new source/destination" wizard: icon cards, category chips and a search box.
import { useMemo, useState } from "react";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { Input } from "@/components/ui/field";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";
import { useDefinitions } from "@/lib/api-client/connectors";
import type { ConnectorDefinition, ConnectorKind } from "@/lib/api-client/types";
import { ConnectorIcon } from "./connector-icon";

const ALL = "all";

/** The chip a definition is filed under: its category, as the reference files it (Data Warehouse, CRM…). */
export function galleryCategory(d: Pick<ConnectorDefinition, "category" | "sub_category">): string {
  return d.category;
}

function categoryLabel(category: string): string {
  return category === ALL ? "All" : category;
}

/** Whether every word of the search appears in the title, name or category (ignoring case). */
export function matchesSearch(d: Pick<ConnectorDefinition, "name" | "title" | "category" | "sub_category">, search: string): boolean {
  const haystack = [d.title, d.name, d.sub_category ?? "", categoryLabel(d.category)].join(" ").toLowerCase();
  return search
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
}

export function DefinitionPicker({ type, onPick }: { type: ConnectorKind; onPick: (d: ConnectorDefinition) => void }) {
  const definitions = useDefinitions(type);
  const [category, setCategory] = useState(ALL);
  const [search, setSearch] = useState("");
  const categories = useMemo(() => [ALL, ...new Set((definitions.data ?? []).map(galleryCategory))], [definitions.data]);
  if (definitions.isLoading) return <LoadingState label="Loading connectors…" />;
  if (definitions.error) return <ErrorState error={definitions.error} onRetry={() => void definitions.refetch()} />;
  if (!definitions.data?.length) return <EmptyState title="No connectors available" description="This server provides no connectors of this type." />;
  const shown = definitions.data.filter((d) => (category === ALL || galleryCategory(d) === category) && matchesSearch(d, search));
  return (
    <div>
      <div className="mb-4 flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
        <div role="group" aria-label="Filter by category" className="flex flex-wrap gap-2">
          {categories.map((c) => (
            <button
              key={c}
              type="button"
              aria-pressed={category === c}
              onClick={() => setCategory(c)}
              className={cn(
                "rounded-full border px-3 py-1 text-sm font-medium focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500",
                category === c ? "border-indigo-600 bg-indigo-600 text-white" : "border-slate-300 bg-white text-slate-700 hover:bg-slate-50",
              )}
            >
              {categoryLabel(c)}
            </button>
          ))}
        </div>
        <Input
          type="search"
          aria-label="Search connectors"
          placeholder="Search connectors"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          className="sm:w-64"
        />
      </div>
      {shown.length === 0 ? (
        <EmptyState
          title="No connector matches"
          description={search ? `Nothing ${category === ALL ? "" : `in ${categoryLabel(category)} `}matches “${search}”.` : "No connector in this category."}
          action={
            <Button
              variant="secondary"
              onClick={() => {
                setSearch("");
                setCategory(ALL);
              }}
            >
              Show all connectors
            </Button>
          }
        />
      ) : (
        <ul aria-label="Connectors" className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">
          {shown.map((d) => (
            <li key={d.name}>
              <button
                type="button"
                onClick={() => onPick(d)}
                className="flex w-full items-center gap-3 rounded-lg border border-slate-200 bg-white p-4 text-left shadow-sm transition hover:border-indigo-400 hover:shadow focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
              >
                <ConnectorIcon name={d.name} icon={d.icon} className="h-10 w-10" />
                <span>
                  <span className="block font-semibold text-slate-900">{d.title}</span>
                  <span className="block text-xs text-slate-500">{categoryLabel(galleryCategory(d))}</span>
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
