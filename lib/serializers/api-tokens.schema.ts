// API token resources, as ./api-tokens.ts builds them (the token itself only in the creation answer).
import { z } from "zod";
import { dateTime, resourceSchema } from "./resource";

const roleFields = {
  role_id: z.number().int().nullable().describe("The role the token is narrowed to; null: the member's own role."),
  role_name: z.string().nullable(),
};

export const apiTokenAttributesSchema = z.strictObject({
  name: z.string(),
  ...roleFields,
  user_id: z.number().int(),
  user_email: z.string(),
  workspace_id: z.number().int(),
  created_at: dateTime(),
  last_used_at: dateTime().nullable(),
  expires_at: dateTime().nullable(),
});
export type ApiTokenAttributes = z.infer<typeof apiTokenAttributesSchema>;
export const apiTokenSchema = resourceSchema("api_tokens", apiTokenAttributesSchema).meta({ id: "ApiToken" });
export type ApiTokenResource = z.infer<typeof apiTokenSchema>;

export const createdApiTokenAttributesSchema = z.strictObject({
  name: z.string(),
  token: z.string().describe("The token; never shown again."),
  ...roleFields,
  expires_at: dateTime().nullable(),
  created_at: dateTime(),
});
export type CreatedApiTokenAttributes = z.infer<typeof createdApiTokenAttributesSchema>;
export const createdApiTokenSchema = resourceSchema("api_tokens", createdApiTokenAttributesSchema).meta({ id: "CreatedApiToken" });
export type CreatedApiTokenResource = z.infer<typeof createdApiTokenSchema>;
