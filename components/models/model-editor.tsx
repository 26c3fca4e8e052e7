"use client";
// Create or edit a model: 1 source → 2 query (SQL editor or table picker) → 3 preview of up to 50
// rows → 4 primary key (from the preview's columns) and name.
import { zodResolver } from "@hookform/resolvers/zod";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Controller, useForm, useWatch } from "react-hook-form";
import { z } from "zod";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Field, Input, Select, Textarea } from "@/components/ui/field";
import { Segmented } from "@/components/ui/segmented";
import { InlineError, LoadingState } from "@/components/ui/states";
import { errorMessage, fieldErrors } from "@/lib/api-client/client";
import { useAllConnectors, useDiscover, useQuerySource } from "@/lib/api-client/connectors";
import { useCreateModel, useUpdateModel } from "@/lib/api-client/models";
import type { Model } from "@/lib/api-client/types";
import { chosenId } from "@/lib/validation/ids";
import { createModelSchema } from "@/lib/validation/models";
import { PreviewTable } from "./preview-table";
import { errorOffset, SqlEditor } from "./sql-editor";

function quoteTable(name: string, connectorName: string): string {
  const q = connectorName.toLowerCase() === "mariadb" ? "`" : '"';
  return name
    .split(".")
    .map((part) => `${q}${part.replaceAll(q, q + q)}${q}`)
    .join(".");
}

/** The create body, with the source unset (null) until the person chooses one. */
const modelFormSchema = z.object({
  model: createModelSchema.shape.model.extend({
    connector_id: chosenId(createModelSchema.shape.model.shape.connector_id, "Choose a source"),
  }),
});

const MODES = [
  { value: "sql", label: "SQL query" },
  { value: "table", label: "Pick a table" },
] as const;

export function ModelEditor({ model, onDone }: { model?: Model; onDone?: () => void }) {
  const router = useRouter();
  const sources = useAllConnectors("source");
  const create = useCreateModel();
  const update = useUpdateModel(model?.id ?? "");
  const mutation = model ? update : create;
  const [mode, setMode] = useState<"sql" | "table">(model?.attributes.query_type === "table_selector" ? "table" : "sql");
  const preview = useQuerySource();
  const [previewRows, setPreviewRows] = useState<Record<string, unknown>[] | null>(null);
  const [previewError, setPreviewError] = useState<string | null>(null);
  // Where the last preview error points in the query: the editor puts the caret there.
  const [errorAt, setErrorAt] = useState<number | null>(null);
  const [previewing, setPreviewing] = useState(false);

  const form = useForm({
    resolver: zodResolver(modelFormSchema),
    defaultValues: {
      model: {
        connector_id: model?.attributes.connector_id ?? null,
        query: model?.attributes.query ?? "",
        query_type: (model?.attributes.query_type as "raw_sql" | "table_selector") ?? "raw_sql",
        primary_key: model?.attributes.primary_key ?? "",
        name: model?.attributes.name ?? "",
        description: model?.attributes.description ?? "",
        configuration: model?.attributes.configuration ?? null,
      },
    },
  });
  const errors = form.formState.errors.model;
  const connectorId = useWatch({ control: form.control, name: "model.connector_id" });
  const query = useWatch({ control: form.control, name: "model.query" });
  const primaryKey = useWatch({ control: form.control, name: "model.primary_key" });
  const configuration = useWatch({ control: form.control, name: "model.configuration" }) as { table?: string } | null;
  const source = sources.data?.find((s) => Number(s.id) === Number(connectorId));
  const tables = useDiscover(connectorId ? String(connectorId) : undefined, { enabled: mode === "table" && Boolean(connectorId) });
  const columns = previewRows?.[0] ? Object.keys(previewRows[0]) : [];
  const pkOptions = [...new Set([...columns, ...(model?.attributes.primary_key && !columns.length ? [model.attributes.primary_key] : [])])];

  async function runPreview() {
    setPreviewError(null);
    setErrorAt(null);
    if (!connectorId || !query.trim()) {
      setPreviewError("Choose a source and write a query first.");
      return;
    }
    setPreviewing(true);
    try {
      const rows = await preview.mutateAsync({ connectorId, query, limit: 50 });
      setPreviewRows(rows);
      if (!primaryKey && rows[0]) {
        const guess = Object.keys(rows[0]).find((c) => c.toLowerCase() === "id") ?? Object.keys(rows[0])[0];
        form.setValue("model.primary_key", guess, { shouldValidate: true });
      }
    } catch (err) {
      setPreviewRows(null);
      setPreviewError(errorMessage(err));
      setErrorAt(errorOffset(query, errorMessage(err)));
    } finally {
      setPreviewing(false);
    }
  }

  const submit = form.handleSubmit((values) => {
    mutation.mutate(values.model, {
      onSuccess: (m) => {
        if (onDone) onDone();
        else router.push(`/models/${m.id}`);
      },
      onError: (err) => {
        for (const [path, message] of Object.entries(fieldErrors(err, "model"))) {
          if (["name", "query", "primary_key", "connector_id", "query_type", "description"].includes(path)) {
            form.setError(`model.${path}` as "model.name", { message });
          }
        }
      },
    });
  });

  if (sources.isLoading) return <LoadingState />;

  return (
    <form onSubmit={submit} noValidate className="space-y-5">
      <Card>
        <CardHeader title="1. Source" description="The database this model reads from." />
        <CardBody>
          <Field label="Source" required error={errors?.connector_id && "Choose a source"} className="max-w-md">
            {(p) => (
              <Select
                {...p}
                {...form.register("model.connector_id", { valueAsNumber: true, onChange: () => setPreviewRows(null) })}
              >
                <option value="">Choose a source…</option>
                {sources.data?.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.attributes.name} ({s.attributes.connector_name})
                  </option>
                ))}
              </Select>
            )}
          </Field>
          {sources.data?.length === 0 && (
            <p className="mt-2 text-sm text-slate-600">
              No sources yet.{" "}
              <Link className="font-medium text-indigo-700 hover:underline" href="/sources/new">
                Create a source
              </Link>{" "}
              first.
            </p>
          )}
        </CardBody>
      </Card>

      <Card>
        <CardHeader
          title="2. Query"
          description="Which rows to sync. Do not end the query with LIMIT or OFFSET."
          actions={
            <Segmented
              label="How to define the rows"
              options={MODES}
              value={mode}
              onChange={setMode}
            />
          }
        />
        <CardBody className="space-y-4">
          {mode === "table" && (
            <Field label="Table" hint="Builds SELECT * FROM the table; switch to SQL query to refine it.">
              {(p) => (
                <Select
                  {...p}
                  disabled={!connectorId || tables.isLoading}
                  value={configuration?.table ?? ""}
                  onChange={(e) => {
                    const table = e.target.value;
                    if (!table || !source) return;
                    form.setValue("model.query", `SELECT * FROM ${quoteTable(table, source.attributes.connector_name)}`, { shouldValidate: true });
                    form.setValue("model.query_type", "table_selector");
                    form.setValue("model.configuration", { table });
                    setPreviewRows(null);
                  }}
                >
                  <option value="">{!connectorId ? "Choose a source first" : tables.isLoading ? "Discovering tables…" : "Choose a table…"}</option>
                  {tables.data?.attributes.catalog.streams.map((s) => (
                    <option key={s.name} value={s.name}>
                      {s.name}
                    </option>
                  ))}
                </Select>
              )}
            </Field>
          )}
          <Field label="SQL query" required error={errors?.query && `Query ${errors.query.message}`}>
            {(p) => (
              <Controller
                control={form.control}
                name="model.query"
                render={({ field }) => (
                  <SqlEditor
                    id={p.id}
                    describedBy={p["aria-describedby"]}
                    invalid={Boolean(errors?.query)}
                    focusAt={errorAt}
                    value={field.value}
                    onChange={(v) => {
                      field.onChange(v);
                      if (mode === "sql") {
                        form.setValue("model.query_type", "raw_sql");
                        form.setValue("model.configuration", null);
                      }
                    }}
                  />
                )}
              />
            )}
          </Field>
        </CardBody>
      </Card>

      <Card>
        <CardHeader
          title="3. Preview"
          description="The first 50 rows of the query, read-only."
          actions={
            <Button variant="secondary" onClick={runPreview} loading={previewing}>
              Preview rows
            </Button>
          }
        />
        <CardBody>
          <InlineError message={previewError} />
          {previewRows ? (
            <>
              <p className="mb-2 text-sm text-slate-500">
                {previewRows.length} row{previewRows.length === 1 ? "" : "s"} shown.
              </p>
              <PreviewTable rows={previewRows} highlight={primaryKey ?? undefined} />
            </>
          ) : (
            !previewError && <p className="text-sm text-slate-500">Run a preview to check the rows and choose the primary key.</p>
          )}
        </CardBody>
      </Card>

      <Card>
        <CardHeader title="4. Primary key and name" />
        <CardBody className="grid grid-cols-1 gap-4 sm:grid-cols-2">
          <Field label="Primary key" hint="The column whose value identifies a row across runs; a sync on this model needs it." error={errors?.primary_key && `Primary key ${errors.primary_key.message}`}>
            {(p) => (
              <Select
                {...p}
                name="model.primary_key"
                value={primaryKey ?? ""}
                onChange={(e) => form.setValue("model.primary_key", e.target.value, { shouldValidate: true })}
                disabled={pkOptions.length === 0}
              >
                <option value="">{pkOptions.length ? "Choose a column…" : "Preview the rows first"}</option>
                {pkOptions.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </Select>
            )}
          </Field>
          <Field label="Name" required hint="No two models of the workspace share a name (ignoring case)." error={errors?.name && `Name ${errors.name.message}`}>
            {(p) => <Input {...p} placeholder="e.g. Active customers" {...form.register("model.name")} />}
          </Field>
          <Field label="Description" className="sm:col-span-2">
            {(p) => <Textarea {...p} rows={2} {...form.register("model.description")} />}
          </Field>
        </CardBody>
      </Card>

      <InlineError message={mutation.error ? errorMessage(mutation.error) : null} />
      <div className="flex justify-end gap-2">
        {onDone && (
          <Button variant="ghost" onClick={onDone}>
            Cancel
          </Button>
        )}
        <Button type="submit" loading={mutation.isPending}>
          {model ? "Save model" : "Create model"}
        </Button>
      </div>
    </form>
  );
}
