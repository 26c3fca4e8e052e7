"use client";
// What the steps read besides the form: models, destinations, the chosen destination's streams and
// fields, the model's sample rows and the mapping types. One query each, shared by every step.
import { useCallback, useMemo, useState } from "react";
import { useWatch, type UseFormReturn } from "react-hook-form";
import { useAllConnectors, useDefinitions, useDiscover, useSampleRows } from "@/lib/api-client/connectors";
import { useModels } from "@/lib/api-client/models";
import { useSyncConfigurations } from "@/lib/api-client/syncs";
import type { JsonSchema } from "@/lib/api-client/types";
import type { DestinationField } from "../mapping-editor";
import type { SyncFormInput, SyncFormValues } from "./form";

/**
 * The stream's fields. A SQL destination's schema keeps each column's own type in `$comment`
 * (lib/connectors/shared/sql.ts): that is the hint shown (a bigint column is "bigint", not the JSON
 * "integer | string" it is read as); other streams show their JSON type.
 */
export function fieldsOf(schema: JsonSchema | undefined): DestinationField[] {
  const props = (schema?.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(props).map(([name, p]) => ({
    name,
    required: Boolean(schema?.required?.includes(name)),
    type:
      typeof p.$comment === "string" && p.$comment
        ? p.$comment
        : Array.isArray(p.type)
          ? p.type.filter((t) => t !== "null").join(" | ")
          : p.type,
  }));
}

export function useWizardData(form: UseFormReturn<SyncFormInput, unknown, SyncFormValues>) {
  const models = useModels({ page: 1, perPage: 100 });
  const destinations = useAllConnectors("destination");
  const configurations = useSyncConfigurations();
  const preview = useSampleRows();
  const values = useWatch({ control: form.control, name: "sync" });
  const model = models.data?.data.find((m) => Number(m.id) === values.model_id);
  const destination = destinations.data?.find((d) => Number(d.id) === values.destination_id);
  // The write modes the chosen destination supports (its connector definition says).
  const definitions = useDefinitions("destination");
  const connectorName = destination?.attributes.connector_name.toLowerCase();
  const writeModes = definitions.data?.find((d) => d.name.toLowerCase() === connectorName)?.supported_write_modes;
  const catalog = useDiscover(values.destination_id ? String(values.destination_id) : undefined);
  const streams = useMemo(() => catalog.data?.attributes.catalog.streams ?? [], [catalog.data]);
  const stream = streams.find((s) => s.name === values.stream_name);
  const destinationFields = useMemo(() => fieldsOf(stream?.json_schema), [stream]);
  const sampleRows = preview.data?.rows;
  // The result's own columns (also when it has no rows), each with its type as the database names it.
  const columns = useMemo(() => preview.data?.columns.map((c) => c.name) ?? (sampleRows?.[0] ? Object.keys(sampleRows[0]) : []), [preview.data, sampleRows]);
  const columnTypes = useMemo(() => Object.fromEntries(preview.data?.columns.map((c) => [c.name, c.type]) ?? []), [preview.data]);
  const [sampleIndex, setSampleIndex] = useState(0);
  const sampleRow = sampleRows?.[sampleIndex] ?? sampleRows?.[0] ?? null;

  // The model's rows feed the column pickers and the template preview; read once per model.
  const { mutate, isPending, error, reset } = preview;
  const loaded = Boolean(preview.data) || isPending || Boolean(error);
  const loadSampleRows = useCallback(() => {
    if (model && !loaded) mutate({ connectorId: model.attributes.connector_id, query: model.attributes.query, limit: 50 });
  }, [model, loaded, mutate]);

  return {
    values,
    models,
    model,
    destinations,
    destination,
    writeModes,
    catalog,
    streams,
    stream,
    destinationFields,
    configurations: configurations.data?.data.configurations.catalog_mapping_types,
    preview: { rows: sampleRows, columns, columnTypes, isPending, error, reset, load: loadSampleRows },
    sample: { index: sampleIndex, setIndex: setSampleIndex, row: sampleRow },
  };
}

export type WizardData = ReturnType<typeof useWizardData>;
