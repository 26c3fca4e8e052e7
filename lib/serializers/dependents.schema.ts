// What deleting a model or a connector takes along, as serializeDependents (./dependents.ts) builds it.
import { z } from "zod";
import { SyncStatus } from "@/lib/generated/prisma/enums";
import { resourceSchema } from "./resource";

const named = { id: z.number().int(), name: z.string() };

export const dependentsSchema = resourceSchema(
  "dependents",
  z.strictObject({
    target_type: z.enum(["model", "connector"]),
    target_id: z.number().int(),
    target_name: z.string(),
    models: z.array(z.strictObject(named)).describe("A source connector's models, deleted with it."),
    syncs: z
      .array(z.strictObject({ ...named, status: z.enum(SyncStatus), running: z.boolean().describe("A run is waiting or running now; it is canceled.") }))
      .describe("The syncs deleted with it (with their runs and records)."),
    waiting_syncs: z
      .array(z.strictObject({ ...named, run_after: z.array(z.number().int()).describe("The deleted syncs it runs after.") }))
      .describe("Syncs that stay but run after a deleted sync: they stop waiting for it."),
    may_delete: z.boolean().describe("Whether the caller may delete it with all of the above."),
    refusal: z.string().nullable().describe("Why not, when may_delete is false; null otherwise."),
  }),
).meta({ id: "Dependents" });
export type DependentsResource = z.infer<typeof dependentsSchema>;
