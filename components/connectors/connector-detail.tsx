"use client";
import { zodResolver } from "@hookform/resolvers/zod";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { DependentsDialog } from "@/components/common/dependents-dialog";
import { dateTime } from "@/components/common/format";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader, PageHeader } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { Field, Input, Textarea } from "@/components/ui/field";
import { ErrorState, InlineError, LoadingState, Spinner } from "@/components/ui/states";
import { errorMessage, fieldErrors } from "@/lib/api-client/client";
import { useCheckConnector, useConnector, useDefinitions, useDeleteConnector, useUpdateConnector } from "@/lib/api-client/connectors";
import { useCan } from "@/lib/api-client/settings";
import type { Connector, ConnectorKind } from "@/lib/api-client/types";
import { updateConnectorSchema } from "@/lib/validation/connectors";
import { CatalogEditor } from "./catalog-editor";
import { CheckResultPanel } from "./check-result";
import { ConfigView } from "./config-view";
import { ConnectorIcon } from "./connector-icon";
import { kindLabel, kindPath } from "./connectors-list";
import { clearMasks, coerceValue, containsMask, JsonSchemaForm, validateValue, withDefaults } from "./json-schema-form";

export function ConnectorDetail({ type, id }: { type: ConnectorKind; id: string }) {
  const connector = useConnector(id);
  const [tab, setTab] = useState<"configuration" | "catalog">("configuration");
  const [deleting, setDeleting] = useState(false);
  const canUpdate = useCan("connector", "update");
  const canDelete = useCan("connector", "delete");

  if (connector.isLoading) return <LoadingState />;
  if (connector.error || !connector.data) return <ErrorState error={connector.error ?? "Not found"} onRetry={() => void connector.refetch()} />;
  const c = connector.data;
  const base = kindPath(type);
  return (
    <>
      <PageHeader
        breadcrumb={
          <Link href={base} className="hover:underline">
            {kindLabel(type, true)}
          </Link>
        }
        title={
          <span className="flex items-center gap-3">
            <ConnectorIcon name={c.attributes.connector_name} icon={c.attributes.icon} />
            {c.attributes.name}
          </span>
        }
        description={c.attributes.description || `${c.attributes.connector_name} ${kindLabel(type).toLowerCase()} · updated ${dateTime(c.attributes.updated_at)}`}
        actions={
          canDelete ? (
            <Button variant="secondary" onClick={() => setDeleting(true)} className="text-red-700">
              Delete
            </Button>
          ) : null
        }
      />
      <div role="tablist" aria-label="Sections" className="mb-4 flex gap-1 border-b border-slate-200">
        {(["configuration", "catalog"] as const).map((t) => (
          <button
            key={t}
            role="tab"
            type="button"
            aria-selected={tab === t}
            onClick={() => setTab(t)}
            className={cn(
              "-mb-px border-b-2 px-4 py-2 text-sm font-medium focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500",
              tab === t ? "border-indigo-600 text-indigo-700" : "border-transparent text-slate-500 hover:text-slate-800",
            )}
          >
            {t === "configuration" ? "Configuration" : type === "source" ? "Tables (catalog)" : "Streams (catalog)"}
          </button>
        ))}
      </div>
      <div role="tabpanel">
        {tab === "configuration" ? <ConfigurationPanel connector={c} type={type} canUpdate={canUpdate} /> : <CatalogEditor connectorId={c.id} canEdit={canUpdate} kind={type} />}
      </div>
      <DeleteConnectorDialog connector={c} type={type} open={deleting} onClose={() => setDeleting(false)} />
    </>
  );
}

function ConfigurationPanel({ connector, type, canUpdate }: { connector: Connector; type: ConnectorKind; canUpdate: boolean }) {
  const definitions = useDefinitions(type);
  const definition = definitions.data?.find((d) => d.name.toLowerCase() === connector.attributes.connector_name.toLowerCase());
  const schema = definition?.connector_spec.connection_specification;
  const [editing, setEditing] = useState(false);
  const [config, setConfig] = useState<Record<string, unknown>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  // Target fields (host, URL…) changed while secrets were masked: the stored secrets do not follow.
  const [retargeted, setRetargeted] = useState<string[]>([]);
  const update = useUpdateConnector(connector.id);
  // Saved settings in view mode; the form's settings (hidden secrets = the stored ones) in edit mode.
  const check = useCheckConnector(connector.id);
  const form = useForm({
    resolver: zodResolver(updateConnectorSchema),
    defaultValues: { connector: { name: connector.attributes.name, description: connector.attributes.description ?? "" } },
  });

  function startEditing() {
    if (!schema) return;
    setConfig(withDefaults(schema, connector.attributes.configuration));
    setRetargeted([]);
    setErrors({});
    check.reset();
    form.reset({ connector: { name: connector.attributes.name, description: connector.attributes.description ?? "" } });
    setEditing(true);
  }

  /** A stored secret is only sent where it was entered for: a new target empties the masked ones. */
  function changeConfig(next: Record<string, unknown>) {
    if (!schema) return setConfig(next);
    const saved = withDefaults(schema, connector.attributes.configuration);
    const changed = (definition?.connector_spec.secret_target_fields ?? []).filter((f) => String(next[f] ?? "") !== String(saved[f] ?? ""));
    if (changed.length > 0 && containsMask(next)) {
      setRetargeted(changed);
      return setConfig(clearMasks(next) as Record<string, unknown>);
    }
    setConfig(next);
  }

  function test() {
    if (!schema) return;
    const errs = validateValue(schema, config);
    setErrors(errs);
    if (Object.keys(errs).length) return;
    check.mutate({ configuration: coerceValue(schema, config) }, { onError: (e) => setErrors(fieldErrors(e, "configuration")) });
  }

  function stopEditing() {
    check.reset();
    setEditing(false);
  }

  const save = form.handleSubmit((values) => {
    if (!schema) return;
    const errs = validateValue(schema, config);
    setErrors(errs);
    if (Object.keys(errs).length) return;
    update.mutate(
      { ...values.connector, configuration: coerceValue(schema, config) },
      {
        onSuccess: stopEditing,
        onError: (e) => setErrors(fieldErrors(e, "connector.configuration", "connector")),
      },
    );
  });

  if (!editing) {
    return (
      <Card>
        <CardHeader
          title="Connection"
          description="Secrets are stored encrypted and never shown."
          actions={
            <>
              <Button variant="secondary" size="sm" onClick={() => check.mutate({})} loading={check.isPending}>
                Test connection
              </Button>
              {canUpdate && (
                <Button size="sm" onClick={startEditing} disabled={!schema}>
                  Edit
                </Button>
              )}
            </>
          }
        />
        <CardBody>
          <div className="mb-4 empty:hidden">
            <CheckResultPanel pending={check.isPending} result={check.data} error={check.error ? errorMessage(check.error) : null} />
          </div>
          {schema ? <ConfigView schema={schema} value={connector.attributes.configuration} /> : definitions.isLoading ? <Spinner className="h-4 w-4" /> : null}
        </CardBody>
      </Card>
    );
  }
  return (
    <Card>
      <CardHeader title="Edit connection" description="Leave hidden secrets as they are to keep them." />
      <CardBody>
        <form onSubmit={save} noValidate className="space-y-5">
          <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
            <Field label="Name" required hint="No two sources, or two destinations, of the workspace share a name (ignoring case)." error={form.formState.errors.connector?.name && `Name ${form.formState.errors.connector.name.message}`}>
              {(p) => <Input {...p} {...form.register("connector.name")} />}
            </Field>
            <Field label="Description">{(p) => <Textarea {...p} rows={1} {...form.register("connector.description")} />}</Field>
          </div>
          {retargeted.length > 0 && (
            <p role="note" className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
              {retargeted.join(", ")} changed: enter the secrets again. A stored secret is only sent to the target it was entered for.
            </p>
          )}
          {schema && <JsonSchemaForm schema={schema} value={config} onChange={changeConfig} errors={errors} />}
          <CheckResultPanel pending={check.isPending} result={check.data} error={check.error && !Object.keys(errors).length ? errorMessage(check.error) : null} />
          <InlineError message={update.error ? errorMessage(update.error) : null} />
          <div className="flex justify-end gap-2">
            <Button variant="ghost" onClick={stopEditing}>
              Cancel
            </Button>
            <Button variant="secondary" onClick={test} loading={check.isPending}>
              Test connection
            </Button>
            <Button type="submit" loading={update.isPending}>
              Save changes
            </Button>
          </div>
        </form>
      </CardBody>
    </Card>
  );
}

function DeleteConnectorDialog({ connector, type, open, onClose }: { connector: Connector; type: ConnectorKind; open: boolean; onClose: () => void }) {
  const router = useRouter();
  const remove = useDeleteConnector();
  return (
    <DependentsDialog
      kind="connector"
      id={connector.id}
      name={connector.attributes.name}
      open={open}
      onClose={onClose}
      loading={remove.isPending}
      onConfirm={() => remove.mutate(connector, { onSuccess: () => router.push(kindPath(type)), onSettled: onClose })}
    />
  );
}
