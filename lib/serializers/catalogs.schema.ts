// Catalog bodies, as ./catalogs.ts builds them: the bare record (create) and the resource (update, discover).
import { z } from "zod";
import { dateTime, json, resourceSchema } from "./resource";

const catalogJson = () =>
  json(
    "{streams: [{name, action, url, json_schema, batch_support, batch_size, request_method, supported_sync_modes, source_defined_cursor, source_defined_primary_key?}], request_rate_limit, request_rate_limit_unit, request_rate_concurrency, schema_mode: schema | schemaless, source_defined_cursor, supported_write_modes? (destinations, as discovered)}; the create answer also echoes the request's json_schema.",
  );

export const catalogRecordSchema = z
  .strictObject({
    id: z.number().int(),
    connector_id: z.number().int(),
    workspace_id: z.number().int(),
    catalog: catalogJson(),
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: "CatalogRecord" });
export type CatalogRecord = z.infer<typeof catalogRecordSchema>;

export const catalogAttributesSchema = z.strictObject({
  connector_id: z.number().int(),
  workspace_id: z.number().int(),
  catalog: catalogJson(),
  catalog_hash: z.string(),
});
export type CatalogAttributes = z.infer<typeof catalogAttributesSchema>;

export const catalogSchema = resourceSchema("catalogs", catalogAttributesSchema).meta({ id: "Catalog" });
export type CatalogResource = z.infer<typeof catalogSchema>;
