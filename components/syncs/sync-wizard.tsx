"use client";
// Create (or edit) a sync: model → destination → stream → field mappings → mode and cursor →
// schedule → name. One react-hook-form form validated by the API's own createSyncSchema.
import { zodResolver } from "@hookform/resolvers/zod";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useState } from "react";
import { Controller, useForm, useWatch, type FieldPath } from "react-hook-form";
import { z } from "zod";
import { ConnectorIcon } from "@/components/connectors/connector-icon";
import { PreviewTable } from "@/components/models/preview-table";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { Field, Input, Select, Textarea } from "@/components/ui/field";
import { InlineError, LoadingState, Spinner } from "@/components/ui/states";
import { Steps } from "@/components/ui/steps";
import { errorMessage, fieldErrors } from "@/lib/api-client/client";
import { useAllConnectors, useDiscover, useQuerySource } from "@/lib/api-client/connectors";
import { useModels } from "@/lib/api-client/models";
import { useCreateSync, useSyncConfigurations, useUpdateSync } from "@/lib/api-client/syncs";
import type { JsonSchema, Mapping, Sync } from "@/lib/api-client/types";
import { normalizeConfiguration } from "@/lib/engine/mapping";
import { nextRunTimes, scheduleSpecFromApi } from "@/lib/engine/schedule";
import { createSyncSchema, scheduleErrors, scheduleUses, SYNC_INTERVAL_UNITS, SYNC_MODES } from "@/lib/validation/syncs";
import { MappingEditor, mappingProblems, type DestinationField } from "./mapping-editor";

type Values = z.input<typeof createSyncSchema>;
type Path = FieldPath<Values>;

const STEPS = ["Model", "Destination", "Stream", "Mapping", "Mode", "Schedule", "Name"];
const STEP_FIELDS: Path[][] = [
  ["sync.model_id", "sync.source_id"],
  ["sync.destination_id"],
  ["sync.stream_name"],
  ["sync.configuration"],
  ["sync.sync_mode", "sync.cursor_field"],
  ["sync.schedule_type", "sync.sync_interval", "sync.sync_interval_unit", "sync.cron_expression", "sync.timezone"],
  ["sync.name", "sync.description"],
];

const TIMEZONES: string[] = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : ["UTC"];

function fieldsOf(schema: JsonSchema | undefined): DestinationField[] {
  const props = (schema?.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(props).map(([name, p]) => ({
    name,
    required: Boolean(schema?.required?.includes(name)),
    type: Array.isArray(p.type) ? p.type.filter((t) => t !== "null").join(" | ") : p.type,
  }));
}

export function SyncWizard({ sync }: { sync?: Sync }) {
  const router = useRouter();
  const search = useSearchParams();
  const editing = Boolean(sync);
  const [step, setStep] = useState(editing ? 3 : 0);
  const [mappingError, setMappingError] = useState<string[]>([]);
  const create = useCreateSync();
  const update = useUpdateSync(sync?.id ?? "");
  const mutation = editing ? update : create;
  const models = useModels({ page: 1, perPage: 100 });
  const destinations = useAllConnectors("destination");
  const configurations = useSyncConfigurations();
  const preview = useQuerySource();
  const a = sync?.attributes;

  const form = useForm<Values>({
    resolver: zodResolver(createSyncSchema),
    defaultValues: {
      sync: {
        model_id: a?.model_id ?? (Number(search.get("model")) || (undefined as unknown as number)),
        source_id: a?.source_id ?? (undefined as unknown as number),
        destination_id: a?.destination_id ?? (undefined as unknown as number),
        stream_name: a?.stream_name ?? "",
        configuration: a ? normalizeConfiguration(a.configuration) : [],
        sync_mode: (a?.sync_mode as "full_refresh" | "incremental") ?? "incremental",
        cursor_field: a?.cursor_field ?? "",
        schedule_type: (a?.schedule_type as "manual") ?? "manual",
        sync_interval: a?.sync_interval ?? 1,
        sync_interval_unit: (a?.sync_interval_unit as "hours") ?? "hours",
        cron_expression: a?.cron_expression ?? "0 * * * *",
        timezone: a?.timezone ?? "UTC",
        name: a?.name ?? "",
        description: a?.description ?? "",
      },
    },
  });
  const errors = form.formState.errors.sync;
  const w = useWatch({ control: form.control, name: "sync" });
  const model = models.data?.data.find((m) => Number(m.id) === Number(w.model_id));
  const destination = destinations.data?.find((d) => Number(d.id) === Number(w.destination_id));
  const catalog = useDiscover(w.destination_id ? String(w.destination_id) : undefined);
  const streams = catalog.data?.attributes.catalog.streams ?? [];
  const stream = streams.find((s) => s.name === w.stream_name);
  const destinationFields = useMemo(() => fieldsOf(stream?.json_schema), [stream]);
  const sampleRows = preview.data;
  const columns = sampleRows?.[0] ? Object.keys(sampleRows[0]) : [];
  const [sampleIndex, setSampleIndex] = useState(0);
  const sampleRow = sampleRows?.[sampleIndex] ?? sampleRows?.[0] ?? null;

  // The sync reads from the model's source.
  useEffect(() => {
    if (model && Number(w.source_id) !== model.attributes.connector_id) form.setValue("sync.source_id", model.attributes.connector_id);
  }, [model, w.source_id, form]);

  // The model's rows feed the column pickers and the template preview.
  const { mutate: loadPreview } = preview;
  useEffect(() => {
    if (step >= 3 && model && !preview.data && !preview.isPending && !preview.error) {
      loadPreview({ connectorId: model.attributes.connector_id, query: model.attributes.query, limit: 50 });
    }
  }, [step, model, preview.data, preview.isPending, preview.error, loadPreview]);

  function prefillMappings() {
    if (editing || (w.configuration as Mapping[] | undefined)?.length) return;
    const cols = new Set(columns);
    const required = destinationFields.filter((f) => f.required);
    form.setValue(
      "sync.configuration",
      required.map((f) => ({ mapping_type: "standard" as const, to: f.name, from: cols.has(f.name) ? f.name : "" })),
    );
  }

  useEffect(() => {
    if (step === 3 && columns.length && destinationFields.length) prefillMappings();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- prefill once when both sides are known
  }, [step, columns.length, destinationFields.length]);

  async function next() {
    if (step === 3) {
      const problems = mappingProblems((w.configuration as Mapping[]) ?? []);
      setMappingError(problems);
      if (problems.length) return;
    }
    if (step === 5) {
      const problems = scheduleErrors(w as never, "sync");
      for (const p of problems) form.setError(p.path as Path, { message: p.message });
      if (problems.length) return;
    }
    const ok = await form.trigger(STEP_FIELDS[step]);
    if (ok) setStep(step + 1);
  }

  const submit = form.handleSubmit((values) => {
    const { cursor_field, ...rest } = values.sync;
    // The form keeps every schedule field; the API refuses values the schedule type does not run on.
    const uses = scheduleUses(rest);
    const body = {
      ...rest,
      sync_interval: uses.interval ? rest.sync_interval : null,
      sync_interval_unit: uses.interval ? rest.sync_interval_unit : null,
      cron_expression: uses.cron ? rest.cron_expression : null,
      configuration: (rest.configuration as Mapping[]) ?? [],
      cursor_field: rest.sync_mode === "incremental" && cursor_field ? cursor_field : null,
      name: rest.name || null,
    };
    const onError = (err: unknown) => {
      const map = fieldErrors(err, "sync");
      let first = -1;
      for (const [path, message] of Object.entries(map)) {
        const idx = STEP_FIELDS.findIndex((f) => f.includes(`sync.${path}` as Path));
        if (idx >= 0) {
          form.setError(`sync.${path}` as Path, { message });
          first = first < 0 ? idx : Math.min(first, idx);
        } else if (path.startsWith("configuration")) {
          setMappingError((e) => [...e, `${path}: ${message}`]);
          first = first < 0 ? 3 : Math.min(first, 3);
        }
      }
      if (first >= 0) setStep(first);
    };
    if (editing) {
      const { cursor_field: _c, ...updateBody } = body;
      update.mutate(updateBody, { onSuccess: () => router.push(`/syncs/${sync!.id}`), onError });
    } else {
      create.mutate(body, { onSuccess: (s) => router.push(`/syncs/${s.id}`), onError });
    }
  }, (invalid) => {
    // Send the person to the first step with a problem.
    const paths = Object.keys(invalid.sync ?? {}).map((k) => `sync.${k}`);
    const first = STEP_FIELDS.findIndex((f) => f.some((p) => paths.includes(p)));
    if (first >= 0 && first !== step) setStep(first);
  });

  const nextTimes = useMemo(() => {
    try {
      if (w.schedule_type === "manual") return [];
      if (scheduleErrors(w as never, "sync").length) return [];
      return nextRunTimes(scheduleSpecFromApi(w as never), 5);
    } catch {
      return [];
    }
  }, [w]);

  if (models.isLoading || destinations.isLoading) return <LoadingState />;

  const nav = (
    <div className="mt-6 flex justify-between">
      <Button variant="secondary" onClick={() => setStep(step - 1)} disabled={step === 0}>
        Back
      </Button>
      {step < STEPS.length - 1 ? (
        <Button onClick={() => void next()}>Continue</Button>
      ) : (
        <Button type="submit" loading={mutation.isPending}>
          {editing ? "Save sync" : "Create sync"}
        </Button>
      )}
    </div>
  );

  return (
    <form onSubmit={submit} noValidate>
      <Steps steps={STEPS} current={step} />
      <Card>
        {step === 0 && (
          <>
            <CardHeader title="Which model's rows should be synced?" />
            <CardBody>
              {models.data?.data.length === 0 ? (
                <p className="text-sm text-slate-600">
                  No models yet. <Link className="font-medium text-indigo-700 hover:underline" href="/models/new">Create a model</Link> first.
                </p>
              ) : (
                <Field label="Model" required error={errors?.model_id && "Choose a model"} className="max-w-md">
                  {(p) => (
                    <Select
                      {...p}
                      disabled={editing}
                      {...form.register("sync.model_id", {
                        valueAsNumber: true,
                        onChange: (e) => {
                          const m = models.data?.data.find((x) => x.id === e.target.value);
                          if (m) form.setValue("sync.source_id", m.attributes.connector_id);
                          preview.reset();
                        },
                      })}
                    >
                      <option value="">Choose a model…</option>
                      {models.data?.data.map((m) => (
                        <option key={m.id} value={m.id}>
                          {m.attributes.name} ({m.attributes.connector?.name})
                        </option>
                      ))}
                    </Select>
                  )}
                </Field>
              )}
              {model && <p className="mt-3 text-sm text-slate-500">Reads from source “{model.attributes.connector?.name}”, primary key <code>{model.attributes.primary_key}</code>.</p>}
              {nav}
            </CardBody>
          </>
        )}
        {step === 1 && (
          <>
            <CardHeader title="Where should the rows go?" />
            <CardBody>
              {destinations.data?.length === 0 ? (
                <p className="text-sm text-slate-600">
                  No destinations yet. <Link className="font-medium text-indigo-700 hover:underline" href="/destinations/new">Create a destination</Link> first.
                </p>
              ) : (
                <div role="radiogroup" aria-label="Destination" className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">
                  {destinations.data?.map((d) => {
                    const selected = Number(w.destination_id) === Number(d.id);
                    return (
                      <button
                        key={d.id}
                        type="button"
                        role="radio"
                        aria-checked={selected}
                        disabled={editing && !selected}
                        onClick={() => {
                          form.setValue("sync.destination_id", Number(d.id), { shouldValidate: true });
                          form.setValue("sync.stream_name", "");
                        }}
                        className={cn(
                          "flex items-center gap-3 rounded-lg border p-4 text-left focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 disabled:opacity-50",
                          selected ? "border-indigo-600 bg-indigo-50 ring-1 ring-indigo-600" : "border-slate-200 bg-white hover:border-indigo-300",
                        )}
                      >
                        <ConnectorIcon name={d.attributes.connector_name} />
                        <span>
                          <span className="block font-medium">{d.attributes.name}</span>
                          <span className="block text-xs text-slate-500">{d.attributes.connector_name}</span>
                        </span>
                      </button>
                    );
                  })}
                </div>
              )}
              {errors?.destination_id && <p className="mt-2 text-sm font-medium text-red-600">Choose a destination.</p>}
              {nav}
            </CardBody>
          </>
        )}
        {step === 2 && (
          <>
            <CardHeader title={`Which stream of “${destination?.attributes.name ?? "the destination"}”?`} description="A stream is a table, object or endpoint of the destination." />
            <CardBody>
              {catalog.isLoading ? (
                <p className="flex items-center gap-2 text-sm text-slate-500"><Spinner className="h-4 w-4" /> Discovering streams…</p>
              ) : catalog.error ? (
                <InlineError message={errorMessage(catalog.error)} />
              ) : (
                <Field label="Stream" required error={errors?.stream_name && `Stream ${errors.stream_name.message}`} className="max-w-md">
                  {(p) => (
                    <Select {...p} {...form.register("sync.stream_name", { onChange: () => !editing && form.setValue("sync.configuration", []) })}>
                      <option value="">Choose a stream…</option>
                      {streams.map((s) => (
                        <option key={s.name} value={s.name}>
                          {s.name}
                        </option>
                      ))}
                    </Select>
                  )}
                </Field>
              )}
              {stream && <p className="mt-3 text-sm text-slate-500">{destinationFields.length} fields, {destinationFields.filter((f) => f.required).length} required.</p>}
              {nav}
            </CardBody>
          </>
        )}
        {step === 3 && (
          <>
            <CardHeader title="Map model columns to destination fields" description="Required destination fields are pre-filled. Templates show their value on a sample row." />
            <CardBody className="space-y-4">
              {preview.isPending && <p className="flex items-center gap-2 text-sm text-slate-500"><Spinner className="h-4 w-4" /> Loading the model&rsquo;s sample rows…</p>}
              {preview.error && <InlineError message={`Could not load the model's rows: ${errorMessage(preview.error)}`} />}
              {sampleRows && sampleRows.length > 0 && (
                <details className="rounded-md border border-slate-200 px-3 py-2 text-sm">
                  <summary className="cursor-pointer font-medium text-slate-700">
                    Sample row {sampleIndex + 1} of {sampleRows.length}
                  </summary>
                  <div className="mt-2 flex items-center gap-2">
                    <Button size="sm" variant="secondary" disabled={sampleIndex === 0} onClick={() => setSampleIndex(sampleIndex - 1)}>Previous row</Button>
                    <Button size="sm" variant="secondary" disabled={sampleIndex >= sampleRows.length - 1} onClick={() => setSampleIndex(sampleIndex + 1)}>Next row</Button>
                  </div>
                  <div className="mt-2">
                    <PreviewTable rows={[sampleRow!]} />
                  </div>
                </details>
              )}
              <Controller
                control={form.control}
                name="sync.configuration"
                render={({ field }) => (
                  <MappingEditor
                    value={(field.value as Mapping[]) ?? []}
                    onChange={(v) => {
                      field.onChange(v);
                      setMappingError([]);
                    }}
                    fields={destinationFields}
                    columns={columns}
                    sampleRow={sampleRow}
                    configurations={configurations.data?.data.configurations.catalog_mapping_types}
                  />
                )}
              />
              {mappingError.length > 0 && (
                <ul role="alert" className="list-disc rounded-md border border-red-200 bg-red-50 py-2 pl-8 pr-3 text-sm text-red-800">
                  {mappingError.map((e) => <li key={e}>{e}</li>)}
                </ul>
              )}
              {nav}
            </CardBody>
          </>
        )}
        {step === 4 && (
          <>
            <CardHeader title="How should changes be sent?" />
            <CardBody className="space-y-4">
              <fieldset>
                <legend className="mb-2 text-sm font-medium text-slate-700">Sync mode</legend>
                <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
                  {SYNC_MODES.map((mode) => (
                    <label key={mode} className={cn("flex cursor-pointer gap-3 rounded-lg border p-4", w.sync_mode === mode ? "border-indigo-600 bg-indigo-50" : "border-slate-200")}>
                      <input type="radio" value={mode} className="mt-1 text-indigo-600 focus:ring-indigo-500" {...form.register("sync.sync_mode")} />
                      <span>
                        <span className="block font-medium">{mode === "incremental" ? "Incremental" : "Full refresh"}</span>
                        <span className="block text-sm text-slate-500">
                          {mode === "incremental" ? "Send only new and changed rows (failed rows are retried)." : "Send every row of the model on every run."}
                        </span>
                      </span>
                    </label>
                  ))}
                </div>
              </fieldset>
              {w.sync_mode === "incremental" && (
                <Field label="Cursor field (optional)" hint={editing ? "The cursor cannot change after a sync is created." : "A column that only grows (e.g. updated_at): each run reads from the last value onwards."} error={errors?.cursor_field?.message} className="max-w-md">
                  {(p) => (
                    <Select {...p} disabled={editing} {...form.register("sync.cursor_field")}>
                      <option value="">None: compare every row</option>
                      {(columns.length ? columns : a?.cursor_field ? [a.cursor_field] : []).map((c) => (
                        <option key={c} value={c}>{c}</option>
                      ))}
                    </Select>
                  )}
                </Field>
              )}
              {nav}
            </CardBody>
          </>
        )}
        {step === 5 && (
          <>
            <CardHeader title="When should it run?" />
            <CardBody className="space-y-4">
              <Field label="Schedule" className="max-w-md">
                {(p) => (
                  <Select {...p} {...form.register("sync.schedule_type")}>
                    <option value="manual">Manually (Run now only)</option>
                    <option value="interval">Every N minutes, hours, days or weeks</option>
                    <option value="cron_expression">Cron expression</option>
                  </Select>
                )}
              </Field>
              {w.schedule_type === "interval" && (
                <div className="flex max-w-md gap-3">
                  <Field label="Every" error={errors?.sync_interval?.message} className="w-32">
                    {(p) => <Input {...p} type="number" min={1} {...form.register("sync.sync_interval", { valueAsNumber: true })} />}
                  </Field>
                  <Field label="Unit" error={errors?.sync_interval_unit?.message} className="flex-1">
                    {(p) => (
                      <Select {...p} {...form.register("sync.sync_interval_unit")}>
                        {SYNC_INTERVAL_UNITS.map((u) => <option key={u} value={u}>{u}</option>)}
                      </Select>
                    )}
                  </Field>
                </div>
              )}
              {w.schedule_type === "cron_expression" && (
                <div className="grid max-w-2xl grid-cols-1 gap-3 sm:grid-cols-2">
                  <Field label="Cron expression" hint="minute hour day-of-month month day-of-week" error={errors?.cron_expression?.message}>
                    {(p) => <Input {...p} className="font-mono" {...form.register("sync.cron_expression")} />}
                  </Field>
                  <Field label="Time zone" error={errors?.timezone?.message}>
                    {(p) => (
                      <Select {...p} {...form.register("sync.timezone")}>
                        {TIMEZONES.includes("UTC") ? null : <option value="UTC">UTC</option>}
                        {TIMEZONES.map((t) => <option key={t} value={t}>{t}</option>)}
                      </Select>
                    )}
                  </Field>
                </div>
              )}
              {w.schedule_type !== "manual" && (
                <div className="rounded-md border border-slate-200 bg-slate-50 px-4 py-3 text-sm" aria-live="polite">
                  <p className="font-medium text-slate-700">Next five runs</p>
                  {nextTimes.length ? (
                    <ol className="mt-1 list-decimal pl-5 font-mono text-xs text-slate-700" data-testid="next-runs">
                      {nextTimes.map((t) => (
                        <li key={t.toISOString()}>
                          {t.toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone: w.schedule_type === "cron_expression" ? w.timezone || "UTC" : undefined })}
                          {w.schedule_type === "cron_expression" && ` (${w.timezone || "UTC"})`}
                        </li>
                      ))}
                    </ol>
                  ) : (
                    <p className="mt-1 text-slate-500">Complete the schedule to see its next runs.</p>
                  )}
                </div>
              )}
              {nav}
            </CardBody>
          </>
        )}
        {step === 6 && (
          <>
            <CardHeader title="Name the sync" />
            <CardBody className="space-y-4">
              <Field label="Name" hint="Optional; shown in lists." error={errors?.name?.message} className="max-w-md">
                {(p) => <Input {...p} placeholder={`${model?.attributes.name ?? "Model"} → ${destination?.attributes.name ?? "destination"}`} {...form.register("sync.name")} />}
              </Field>
              <Field label="Description" className="max-w-md">{(p) => <Textarea {...p} rows={2} {...form.register("sync.description")} />}</Field>
              <InlineError message={mutation.error ? errorMessage(mutation.error) : null} />
              {nav}
            </CardBody>
          </>
        )}
      </Card>
    </form>
  );
}
