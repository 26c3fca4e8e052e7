// Request shapes of the workspace endpoints (shared by the console forms and the OpenAPI document).
// Bodies come as {workspace: {...}} or with the same members flat: the reference console sends them
// flat (ui/src/services/settings.ts), which its server wraps into `workspace` itself.
import { z } from "zod";
import { ORGANIZATION_ID } from "@/lib/settings/organization";

const name = z
  .string({ error: "is required" })
  .trim()
  .min(1, "must not be empty")
  .max(100, "must be at most 100 characters")
  .describe("The workspace's display name.");

const description = z
  .string({ error: "must be a string or null" })
  .trim()
  .max(1000, "must be at most 1000 characters")
  .nullable()
  .optional()
  .describe("Free text about the workspace; empty or null clears it.");

const region = z
  .string({ error: "must be a string or null" })
  .trim()
  .max(100, "must be at most 100 characters")
  .nullable()
  .optional()
  .describe("A label of your choosing, e.g. where the data lives; empty or null clears it.");

const organizationId = z
  .number({ error: "must be an integer" })
  .int("must be an integer")
  .refine((id) => id === ORGANIZATION_ID, `must be ${ORGANIZATION_ID}: this server has one organization`)
  .optional()
  .describe(`The organization (this server has one, id ${ORGANIZATION_ID}); optional.`);

/** Wraps a flat body into {workspace: body}; a body that already has `workspace` passes unchanged. */
const wrapFlat = (value: unknown) =>
  value !== null && typeof value === "object" && !Array.isArray(value) && !("workspace" in value)
    ? { workspace: value }
    : value;

const required = { error: "is required: send {workspace: {name}} or {name}" };

export const createWorkspaceSchema = z.preprocess(
  wrapFlat,
  z.object({
    workspace: z.object({ name, description, region, organization_id: organizationId }, required),
  }),
);
export type CreateWorkspaceInput = z.infer<typeof createWorkspaceSchema>["workspace"];

export const updateWorkspaceSchema = z.preprocess(
  wrapFlat,
  z.object({
    workspace: z
      .object({ name: name.optional(), description, region, organization_id: organizationId }, required)
      .refine((w) => w.name !== undefined || w.description !== undefined || w.region !== undefined, {
        message: "send at least one of name, description, region",
      }),
  }),
);
export type UpdateWorkspaceInput = z.infer<typeof updateWorkspaceSchema>["workspace"];
