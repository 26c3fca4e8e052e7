"use client";
import { createColumnHelper } from "@tanstack/react-table";
import Link from "next/link";
import { useMemo, useState } from "react";
import { relativeTime } from "@/components/common/format";
import { ConnectorIcon } from "@/components/connectors/connector-icon";
import { Badge } from "@/components/ui/badge";
import { LinkButton } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/card";
import { DataTable } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/states";
import { useModels } from "@/lib/api-client/models";
import { useCan } from "@/lib/api-client/settings";
import type { Model } from "@/lib/api-client/types";

const col = createColumnHelper<Model>();

export function ModelsList() {
  const [page, setPage] = useState(1);
  const query = useModels({ page, perPage: 20 });
  const canCreate = useCan("model", "create");
  const columns = useMemo(
    () => [
      col.accessor((m) => m.attributes.name, {
        id: "name",
        header: "Name",
        cell: (info) => (
          <Link href={`/models/${info.row.original.id}`} className="font-medium text-indigo-700 hover:underline">
            {info.getValue()}
          </Link>
        ),
      }),
      col.accessor((m) => m.attributes.connector?.name ?? String(m.attributes.connector_id), {
        id: "source",
        header: "Source",
        cell: (info) => (
          <span className="inline-flex items-center gap-2">
            <ConnectorIcon name={info.row.original.attributes.connector?.connector_name ?? "?"} icon={info.row.original.attributes.connector?.icon} className="h-6 w-6" />
            {info.getValue()}
          </span>
        ),
      }),
      col.accessor((m) => m.attributes.query_type, { id: "query_type", header: "Type", cell: (info) => <Badge>{info.getValue().replace("_", " ")}</Badge> }),
      col.accessor((m) => m.attributes.primary_key, { id: "primary_key", header: "Primary key", cell: (info) => <code className="text-xs">{info.getValue()}</code> }),
      col.accessor((m) => m.attributes.updated_at, { id: "updated_at", header: "Updated", cell: (info) => relativeTime(info.getValue()) }),
    ],
    [],
  );
  const create = canCreate ? <LinkButton href="/models/new">New model</LinkButton> : null;
  return (
    <>
      <PageHeader title="Models" description="Queries that define which rows of a source are synced." actions={create} />
      <DataTable
        label="Models"
        columns={columns}
        data={query.data?.data}
        isLoading={query.isFetching}
        error={query.error}
        onRetry={() => void query.refetch()}
        pagination={{ page, perPage: 20, totalPages: query.data?.meta?.total_pages, totalCount: query.data?.meta?.total_count }}
        onPageChange={setPage}
        getRowId={(m) => m.id}
        empty={<EmptyState title="No models yet" description="A model is a SQL query (or a table) on a source. Syncs send its rows to a destination." action={create} />}
      />
    </>
  );
}
