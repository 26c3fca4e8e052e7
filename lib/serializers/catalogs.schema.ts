// Catalog bodies, as ./catalogs.ts builds them: the bare record (create) and the resource (update, discover).
import { z } from "zod";
import { catalogAnswerSchema } from "@/lib/validation/catalogs";
import { dateTime, resourceSchema } from "./resource";

// The stored catalog's one schema (lib/validation/catalogs.ts), the one the engine and the services parse with.
const catalogJson = () => catalogAnswerSchema;

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
