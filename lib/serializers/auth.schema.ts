// Answers of the sign-in endpoints and GET /users/me, as ./auth.ts builds them.
import { z } from "zod";
import { RESOURCES } from "@/lib/auth/permissions";
import { dateTime, resourceSchema } from "./resource";

/** {data: {type: "token", id: <jwt>, attributes: {token: <jwt>}}}: a session token. */
export const tokenDocumentSchema = z
  .strictObject({ data: resourceSchema("token", z.strictObject({ token: z.string().describe("A bearer JWT.") })) })
  .meta({ id: "TokenDocument" });
export type TokenDocument = z.infer<typeof tokenDocumentSchema>;

/** A password change: the caller's fresh session, and the sentence saying what else ended. */
export const passwordChangedSchema = z
  .strictObject({
    data: resourceSchema(
      "token",
      z.strictObject({
        token: z.string().describe("A fresh session bearer JWT; every earlier one no longer works."),
        message: z.string().describe("What the change ended: every other session and every API token of the account."),
      }),
    ),
  })
  .meta({ id: "PasswordChanged" });
export type PasswordChanged = z.infer<typeof passwordChangedSchema>;

const crud = z.strictObject({ create: z.boolean(), read: z.boolean(), update: z.boolean(), delete: z.boolean() });
export const effectivePoliciesSchema = z
  .strictObject({ permissions: z.partialRecord(z.enum(RESOURCES), crud) })
  .describe("For each resource, which of create, read, update, delete the role may do.")
  .meta({ id: "Policies" });

export const currentUserAttributesSchema = z.strictObject({
  email: z.string(),
  name: z.string(),
  created_at: dateTime(),
  updated_at: dateTime(),
  workspace_id: z.number().int().describe("The Workspace-Id workspace when you are a member of it, else your default one."),
  token_kind: z.enum(["session", "api_token"]),
  role: z.strictObject({ id: z.number().int(), role_name: z.string(), policies: effectivePoliciesSchema }),
  workspaces: z.array(z.strictObject({ id: z.number().int(), name: z.string(), role_name: z.string() })),
});
export type CurrentUserAttributes = z.infer<typeof currentUserAttributesSchema>;

export const currentUserSchema = z.strictObject({ data: resourceSchema("users", currentUserAttributesSchema) });
export type CurrentUserBody = z.infer<typeof currentUserSchema>;
