"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { dateTime } from "@/components/common/format";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader, PageHeader } from "@/components/ui/card";
import { DependentsDialog } from "@/components/common/dependents-dialog";
import { ErrorState, InlineError, LoadingState } from "@/components/ui/states";
import { errorMessage } from "@/lib/api-client/client";
import { useQuerySource } from "@/lib/api-client/connectors";
import { useDeleteModel, useModel } from "@/lib/api-client/models";
import { useCan } from "@/lib/api-client/settings";
import { useSyncs } from "@/lib/api-client/syncs";
import { ModelEditor } from "./model-editor";
import { PreviewTable } from "./preview-table";
import { HighlightedSql } from "./sql-editor";

export function ModelDetail({ id }: { id: string }) {
  const router = useRouter();
  const model = useModel(id);
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const preview = useQuerySource();
  const remove = useDeleteModel();
  const syncs = useSyncs({ page: 1, perPage: 100, modelId: id });
  const canUpdate = useCan("model", "update");
  const canDelete = useCan("model", "delete");
  // Previews run the query on the source: they need the right to write models (query_source).
  const canPreview = useCan("model", "create");

  if (model.isLoading) return <LoadingState />;
  if (model.error || !model.data) return <ErrorState error={model.error ?? "Not found"} onRetry={() => void model.refetch()} />;
  const m = model.data;
  const dependents = syncs.data?.data ?? [];

  return (
    <>
      <PageHeader
        breadcrumb={<Link href="/models" className="hover:underline">Models</Link>}
        title={m.attributes.name}
        description={m.attributes.description || `On ${m.attributes.connector?.name ?? `source ${m.attributes.connector_id}`} · updated ${dateTime(m.attributes.updated_at)}`}
        actions={
          <>
            {canUpdate && !editing && <Button onClick={() => setEditing(true)}>Edit</Button>}
            {canDelete && (
              <Button variant="secondary" className="text-red-700" onClick={() => setDeleting(true)}>
                Delete
              </Button>
            )}
          </>
        }
      />
      {editing ? (
        <ModelEditor model={m} onDone={() => setEditing(false)} />
      ) : (
        <div className="space-y-5">
          <Card>
            <CardHeader
              title="Query"
              description={
                <>
                  <Badge>{m.attributes.query_type.replace("_", " ")}</Badge> · {m.attributes.primary_key ? <>primary key <code>{m.attributes.primary_key}</code></> : "no primary key (a sync needs one)"}
                </>
              }
              actions={
                canPreview && <Button variant="secondary" size="sm" loading={preview.isPending} onClick={() => preview.mutate({ connectorId: m.attributes.connector_id, query: m.attributes.query, limit: 50 })}>
                  Preview rows
                </Button>
              }
            />
            <CardBody>
              <pre className="overflow-auto whitespace-pre-wrap rounded-md border border-slate-200 bg-slate-50 p-3 font-mono text-sm leading-6">
                <HighlightedSql sql={m.attributes.query} />
              </pre>
            </CardBody>
          </Card>
          {(preview.data || preview.error) && (
            <Card>
              <CardHeader title="Preview" />
              <CardBody>{preview.error ? <InlineError message={errorMessage(preview.error)} /> : <PreviewTable rows={preview.data ?? []} highlight={m.attributes.primary_key ?? undefined} />}</CardBody>
            </Card>
          )}
          <Card>
            <CardHeader title="Syncs using this model" />
            <CardBody>
              {dependents.length === 0 ? (
                <p className="text-sm text-slate-500">
                  None yet.{" "}
                  <Link href={`/syncs/new?model=${m.id}`} className="font-medium text-indigo-700 hover:underline">
                    Create a sync
                  </Link>
                </p>
              ) : (
                <ul className="space-y-1 text-sm">
                  {dependents.map((s) => (
                    <li key={s.id}>
                      <Link href={`/syncs/${s.id}`} className="text-indigo-700 hover:underline">
                        {s.attributes.name || `Sync ${s.id}`}
                      </Link>{" "}
                      <Badge>{s.attributes.status}</Badge>
                    </li>
                  ))}
                </ul>
              )}
            </CardBody>
          </Card>
        </div>
      )}
      <DependentsDialog
        kind="model"
        id={m.id}
        name={m.attributes.name}
        open={deleting}
        onClose={() => setDeleting(false)}
        loading={remove.isPending}
        onConfirm={() => remove.mutate(m, { onSuccess: () => router.push("/models"), onSettled: () => setDeleting(false) })}
      />
    </>
  );
}
