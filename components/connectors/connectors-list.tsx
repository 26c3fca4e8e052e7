"use client";
import { createColumnHelper, type SortingState } from "@tanstack/react-table";
import Link from "next/link";
import { useMemo, useState } from "react";
import { relativeTime } from "@/components/common/format";
import { useDebounced } from "@/components/common/use-debounced";
import { LinkButton } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/card";
import { DataTable } from "@/components/ui/data-table";
import { Input } from "@/components/ui/field";
import { EmptyState } from "@/components/ui/states";
import { useConnectors } from "@/lib/api-client/connectors";
import { useCan } from "@/lib/api-client/settings";
import type { Connector, ConnectorKind } from "@/lib/api-client/types";
import { ConnectorIcon } from "./connector-icon";

const col = createColumnHelper<Connector>();

export const kindLabel = (type: ConnectorKind, plural = false) =>
  type === "source" ? (plural ? "Sources" : "Source") : plural ? "Destinations" : "Destination";
export const kindPath = (type: ConnectorKind) => (type === "source" ? "/sources" : "/destinations");

export function ConnectorsList({ type }: { type: ConnectorKind }) {
  const [search, setSearch] = useState("");
  const [page, setPage] = useState(1);
  const [sorting, setSorting] = useState<SortingState>([{ id: "updated_at", desc: true }]);
  const debounced = useDebounced(search.trim());
  const sort = sorting[0] ? `${sorting[0].desc ? "-" : ""}${sorting[0].id}` : undefined;
  const query = useConnectors(type, { page, perPage: 20, search: debounced || undefined, sort });
  const canCreate = useCan("connector", "create");
  const base = kindPath(type);

  const columns = useMemo(
    () => [
      col.accessor((c) => c.attributes.name, {
        id: "name",
        header: "Name",
        cell: (info) => (
          <Link href={`${base}/${info.row.original.id}`} className="font-medium text-indigo-700 hover:underline focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500">
            {info.getValue()}
          </Link>
        ),
      }),
      col.accessor((c) => c.attributes.connector_name, {
        id: "connector_name",
        header: "Connector",
        cell: (info) => (
          <span className="inline-flex items-center gap-2">
            <ConnectorIcon name={info.getValue()} icon={info.row.original.attributes.icon} className="h-6 w-6" />
            {info.getValue()}
          </span>
        ),
      }),
      col.accessor((c) => c.attributes.created_at, { id: "created_at", header: "Created", cell: (info) => relativeTime(info.getValue()) }),
      col.accessor((c) => c.attributes.updated_at, { id: "updated_at", header: "Updated", cell: (info) => relativeTime(info.getValue()) }),
    ],
    [base],
  );

  const label = kindLabel(type, true);
  const create = canCreate ? <LinkButton href={`${base}/new`}>New {kindLabel(type).toLowerCase()}</LinkButton> : null;
  return (
    <>
      <PageHeader
        title={label}
        description={type === "source" ? "Databases and APIs your models read from." : "Tools and databases your syncs write to."}
        actions={create}
      />
      <div className="mb-4 max-w-sm">
        <label htmlFor="connector-search" className="sr-only">
          Search {label.toLowerCase()}
        </label>
        <Input
          id="connector-search"
          type="search"
          placeholder={`Search ${label.toLowerCase()} by name…`}
          value={search}
          onChange={(e) => {
            setSearch(e.target.value);
            setPage(1);
          }}
        />
      </div>
      <DataTable
        label={label}
        columns={columns}
        data={query.data?.data}
        isLoading={query.isFetching}
        error={query.error}
        onRetry={() => void query.refetch()}
        sorting={sorting}
        onSortingChange={(s) => {
          setSorting(s);
          setPage(1);
        }}
        pagination={{ page, perPage: 20, totalPages: query.data?.meta?.total_pages, totalCount: query.data?.meta?.total_count }}
        onPageChange={setPage}
        getRowId={(c) => c.id}
        empty={
          debounced ? (
            <EmptyState title={`No ${label.toLowerCase()} match “${debounced}”`} description="Try another name." />
          ) : (
            <EmptyState
              title={`No ${label.toLowerCase()} yet`}
              description={
                type === "source"
                  ? "Connect a database to read rows from. Models are queries on a source."
                  : "Connect a destination to send rows to. Syncs write a model's rows into it."
              }
              action={create}
            />
          )
        }
      />
    </>
  );
}
