// Request shapes of the workspace endpoints (shared by the console forms and the OpenAPI document).
import { z } from "zod";

const name = z
  .string({ error: "is required" })
  .trim()
  .min(1, "must not be empty")
  .max(100, "must be at most 100 characters")
  .describe("The workspace's display name.");

export const createWorkspaceSchema = z.object({
  workspace: z.object({ name }, { error: "is required: send {workspace: {name}}" }),
});
export type CreateWorkspaceInput = z.infer<typeof createWorkspaceSchema>["workspace"];

export const updateWorkspaceSchema = z.object({
  workspace: z.object({ name }, { error: "is required: send {workspace: {name}}" }),
});
export type UpdateWorkspaceInput = z.infer<typeof updateWorkspaceSchema>["workspace"];
