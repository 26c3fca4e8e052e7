"use client";
// The connector's catalog: catalog-level rate settings and, per stream, its JSON Schema, batching
// and rate settings, editable and saved with PUT /api/v1/catalogs/{id}. Only what applies shows:
// a source's tables list their columns (nothing there limits or batches a read); a database
// destination's tables show their columns and rows per write, never HTTP options (request method,
// batch support) or raw JSON Schema; API streams (HTTP, Slack) show it all.
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Checkbox, Field, Input, Select, Textarea } from "@/components/ui/field";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";
import { useDiscover, useRefreshDiscover, useSaveCatalog } from "@/lib/api-client/connectors";
import type { CatalogBody, ConnectorKind, JsonSchema, Stream } from "@/lib/api-client/types";
import { RATE_LIMIT_UNITS, REQUEST_METHODS } from "@/lib/validation/catalogs";

/** A table of a database (SQL sources and destinations): its columns come from the database. */
const isTable = (s: Stream) => s.action === "fetch";

/** The columns of a table stream, from its JSON Schema: name, type as the database names it, required, key. */
function ColumnsTable({ stream }: { stream: Stream }) {
  const props = Object.entries((stream.json_schema?.properties as Record<string, JsonSchema>) ?? {});
  const required = new Set((stream.json_schema?.required as string[] | undefined) ?? []);
  const key = new Set(stream.primary_key ?? []);
  const typeOf = (p: JsonSchema) => (typeof p.$comment === "string" ? p.$comment : [p.type ?? "any"].flat().filter((t) => t !== "null").join(" or "));
  return (
    <table className="w-full text-left text-sm" aria-label={`Columns of ${stream.name}`}>
      <thead className="text-xs uppercase tracking-wide text-slate-500">
        <tr>
          <th className="py-1 pr-4 font-medium">Column</th>
          <th className="py-1 pr-4 font-medium">Type</th>
          <th className="py-1 font-medium">Notes</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {props.map(([name, p]) => (
          <tr key={name}>
            <td className="py-1 pr-4 font-mono">{name}</td>
            <td className="py-1 pr-4 text-slate-600">{typeOf(p)}</td>
            <td className="py-1 text-slate-600">{[key.has(name) ? "primary key" : null, required.has(name) ? "required" : null].filter(Boolean).join(", ")}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function CatalogEditor({ connectorId, canEdit, kind }: { connectorId: string; canEdit: boolean; kind: ConnectorKind }) {
  const discover = useDiscover(connectorId);
  const refresh = useRefreshDiscover(connectorId);
  const [draft, setDraft] = useState<CatalogBody | null>(null);
  const [schemaText, setSchemaText] = useState<Record<string, string>>({});
  const [schemaErrors, setSchemaErrors] = useState<Record<string, string>>({});
  const [open, setOpen] = useState<string | null>(null);
  const save = useSaveCatalog(connectorId);

  if (discover.isLoading) return <LoadingState label="Discovering streams…" />;
  if (discover.error) return <ErrorState error={discover.error} onRetry={() => void discover.refetch()} />;
  const catalog = discover.data;
  if (!catalog) return <EmptyState title="No catalog yet" description="Discover the streams of this connector." />;
  const current = draft ?? catalog.attributes.catalog;
  const editing = draft !== null;

  const setStream = (index: number, patch: Partial<Stream>) =>
    setDraft({ ...current, streams: current.streams.map((s, i) => (i === index ? { ...s, ...patch } : s)) });

  function startEditing() {
    setDraft(structuredClone(catalog!.attributes.catalog));
    setSchemaText(Object.fromEntries(catalog!.attributes.catalog.streams.map((s) => [s.name, JSON.stringify(s.json_schema, null, 2)])));
    setSchemaErrors({});
  }

  function submit() {
    if (!draft) return;
    const errors: Record<string, string> = {};
    const streams = draft.streams.map((s) => {
      try {
        return { ...s, json_schema: JSON.parse(schemaText[s.name] ?? "{}") };
      } catch (e) {
        errors[s.name] = `JSON Schema is not valid JSON: ${(e as Error).message}`;
        return s;
      }
    });
    setSchemaErrors(errors);
    if (Object.keys(errors).length) return;
    save.mutate({ catalogId: catalog!.id, catalog: { ...draft, streams } }, { onSuccess: () => setDraft(null) });
  }

  const num = (v: string) => (v === "" ? 0 : Number(v));

  return (
    <Card>
      <CardHeader
        title={`${current.streams.length} stream${current.streams.length === 1 ? "" : "s"}`}
        description={kind === "source" ? "The tables this source can read, with their columns." : "What this destination receives, and how fast it may be called."}
        actions={
          editing ? (
            <>
              <Button variant="ghost" size="sm" onClick={() => setDraft(null)}>
                Cancel
              </Button>
              <Button size="sm" onClick={submit} loading={save.isPending}>
                Save catalog
              </Button>
            </>
          ) : (
            <>
              <Button variant="secondary" size="sm" onClick={() => refresh.mutate(undefined)} loading={refresh.isPending}>
                Discover again
              </Button>
              {canEdit && !(kind === "source" && current.streams.every(isTable)) && (
                <Button size="sm" onClick={startEditing}>
                  Edit settings
                </Button>
              )}
            </>
          )
        }
      />
      <CardBody className="space-y-5">
        {kind === "destination" && (
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
          <Field label={current.streams.every(isTable) ? "Write rate limit" : "Request rate limit"} hint={current.streams.every(isTable) ? "Writes per unit; 0 = no limit." : "Calls per unit; 0 = no limit."}>
            {(p) => <Input {...p} type="number" min={0} disabled={!editing} value={current.request_rate_limit ?? 0} onChange={(e) => setDraft({ ...current, request_rate_limit: num(e.target.value) })} />}
          </Field>
          <Field label="Rate limit unit">
            {(p) => (
              <Select {...p} disabled={!editing} value={current.request_rate_limit_unit ?? "minute"} onChange={(e) => setDraft({ ...current, request_rate_limit_unit: RATE_LIMIT_UNITS.find((u) => u === e.target.value) })}>
                {RATE_LIMIT_UNITS.map((u) => (
                  <option key={u}>{u}</option>
                ))}
              </Select>
            )}
          </Field>
          <Field label="Concurrency" hint={current.streams.every(isTable) ? "Writes in flight at once." : "Requests in flight at once."}>
            {(p) => <Input {...p} type="number" min={1} disabled={!editing} value={current.request_rate_concurrency ?? 1} onChange={(e) => setDraft({ ...current, request_rate_concurrency: Math.max(1, num(e.target.value)) })} />}
          </Field>
        </div>
        )}
        <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200">
          {current.streams.map((s, i) => {
            const expanded = open === s.name;
            const props = Object.keys((s.json_schema?.properties as Record<string, unknown>) ?? {});
            return (
              <li key={s.name}>
                <button
                  type="button"
                  aria-expanded={expanded}
                  onClick={() => setOpen(expanded ? null : s.name)}
                  className="flex w-full items-center justify-between gap-4 px-4 py-3 text-left hover:bg-slate-50 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-indigo-500"
                >
                  <span className="font-mono text-sm font-medium text-slate-900">{s.name}</span>
                  <span className="flex items-center gap-2 text-xs text-slate-500">
                    {props.length} {isTable(s) ? "columns" : "fields"}
                    {s.batch_support && kind === "destination" && <Badge tone="indigo">{isTable(s) ? `${s.batch_size} rows per write` : `batch ${s.batch_size}`}</Badge>}
                    <span aria-hidden>{expanded ? "▾" : "▸"}</span>
                  </span>
                </button>
                {expanded && (
                  <div className="space-y-4 bg-slate-50/60 px-4 py-4">
                    {isTable(s) ? (
                      <>
                        {kind === "destination" && (
                          <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
                            <Field label="Rows per write" hint="Rows sent to the table in one statement.">
                              {(p) => <Input {...p} type="number" min={1} disabled={!editing} value={s.batch_size} onChange={(e) => setStream(i, { batch_size: num(e.target.value) })} />}
                            </Field>
                            <Field label="Stream rate limit" hint="Writes per unit; overrides the catalog's when non-zero.">
                              {(p) => <Input {...p} type="number" min={0} disabled={!editing} value={s.request_rate_limit ?? 0} onChange={(e) => setStream(i, { request_rate_limit: num(e.target.value) })} />}
                            </Field>
                          </div>
                        )}
                        <ColumnsTable stream={s} />
                        <p className="text-xs text-slate-500">Columns come from the database; use “Discover again” after changing the table.</p>
                      </>
                    ) : (
                      <>
                    <div className="grid grid-cols-1 gap-4 sm:grid-cols-4">
                      <Field label="Request method">
                        {(p) => (
                          <Select {...p} disabled={!editing} value={s.request_method ?? "POST"} onChange={(e) => setStream(i, { request_method: REQUEST_METHODS.find((m) => m === e.target.value) })}>
                            {REQUEST_METHODS.map((m) => (
                              <option key={m}>{m}</option>
                            ))}
                          </Select>
                        )}
                      </Field>
                      <div className="flex items-end pb-2">
                        <Checkbox label="Batch support" disabled={!editing} checked={s.batch_support} onChange={(e) => setStream(i, { batch_support: e.target.checked })} />
                      </div>
                      <Field label="Batch size">
                        {(p) => <Input {...p} type="number" min={0} disabled={!editing} value={s.batch_size} onChange={(e) => setStream(i, { batch_size: num(e.target.value) })} />}
                      </Field>
                      <Field label="Stream rate limit" hint="Overrides the catalog's when non-zero.">
                        {(p) => <Input {...p} type="number" min={0} disabled={!editing} value={s.request_rate_limit ?? 0} onChange={(e) => setStream(i, { request_rate_limit: num(e.target.value) })} />}
                      </Field>
                    </div>
                    <Field label="JSON Schema of a record" error={schemaErrors[s.name]}>
                      {(p) =>
                        editing ? (
                          <Textarea {...p} rows={12} className="font-mono text-xs" value={schemaText[s.name] ?? ""} onChange={(e) => setSchemaText({ ...schemaText, [s.name]: e.target.value })} />
                        ) : (
                          <pre id={p.id} className="max-h-80 overflow-auto rounded-md border border-slate-200 bg-white p-3 font-mono text-xs text-slate-800">
                            {JSON.stringify(s.json_schema, null, 2)}
                          </pre>
                        )
                      }
                    </Field>
                    </>
                    )}
                  </div>
                )}
              </li>
            );
          })}
        </ul>
      </CardBody>
    </Card>
  );
}
