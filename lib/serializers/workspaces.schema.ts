// The workspace resource, as serializeWorkspace (./workspaces.ts) builds it.
import { z } from "zod";
import { dateTime, resourceSchema } from "./resource";

export const workspaceAttributesSchema = z.strictObject({
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  region: z.string().nullable(),
  status: z.literal("active"),
  organization_id: z.number().int(),
  organization_name: z.string(),
  role_name: z.string().nullable().describe("Your role in the workspace."),
  members_count: z.number().int(),
  workspace_logo_url: z.null(),
  organization_logo_url: z.null(),
  created_at: dateTime(),
  updated_at: dateTime(),
});
export type WorkspaceAttributes = z.infer<typeof workspaceAttributesSchema>;
export const workspaceSchema = resourceSchema("workspaces", workspaceAttributesSchema).meta({ id: "Workspace" });
export type WorkspaceResource = z.infer<typeof workspaceSchema>;
