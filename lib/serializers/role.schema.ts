// The role resource, as serializeRole (./role.ts) builds it.
import { z } from "zod";
import { RoleType } from "@/lib/generated/prisma/enums";
import { effectivePoliciesSchema } from "./auth.schema";
import { dateTime, resourceSchema } from "./resource";

export const roleAttributesSchema = z.strictObject({
  role_name: z.string(),
  role_desc: z.string(),
  role_type: z.enum(RoleType),
  workspace_id: z.number().int().nullable().describe("null for system roles."),
  policies: effectivePoliciesSchema,
  created_at: dateTime(),
  updated_at: dateTime(),
  in_use: z
    .strictObject({ members: z.number().int(), api_tokens: z.number().int() })
    .optional()
    .describe("In the list: who holds the role in this workspace (members, and API tokens still valid); a custom role in use cannot be deleted."),
});
export type RoleAttributes = z.infer<typeof roleAttributesSchema>;
export const roleSchema = resourceSchema("roles", roleAttributesSchema).meta({ id: "Role" });
export type RoleResource = z.infer<typeof roleSchema>;
