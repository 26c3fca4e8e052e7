// Request shapes of the workspace member endpoints (shared by the console forms and the OpenAPI document).
import { z } from "zod";
import { intId } from "./ids";

export const MIN_PASSWORD_LENGTH = 8;

const roleId = intId(
  "The member's role: a system role (Admin, Member, Viewer) or a custom role of this workspace.",
  "a role id",
);

export const createMemberSchema = z.object({
  member: z.object(
    {
      email: z
        .string({ error: "is required" })
        .trim()
        .toLowerCase()
        .email("must be an email address")
        .max(320, "must be at most 320 characters")
        .describe("The person's email; an existing account is added, otherwise one is created."),
      // Both are required whether or not the email has an account: asking only for new accounts
      // would tell the inviter which emails are registered.
      name: z
        .string({ error: "is required" })
        .trim()
        .min(1, "must not be empty")
        .max(100, "must be at most 100 characters")
        .describe("The person's name, used when the email has no account yet."),
      password: z
        .string({ error: `is required (at least ${MIN_PASSWORD_LENGTH} characters)` })
        .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
        .max(1024, "must be at most 1024 characters")
        .describe(
          `Initial password (at least ${MIN_PASSWORD_LENGTH} characters), used when the email has no account yet; an existing account keeps its own.`,
        ),
      role_id: roleId,
    },
    { error: "is required: send {member: {email, name, password, role_id}}" },
  ),
});
export type CreateMemberInput = z.infer<typeof createMemberSchema>["member"];

export const updateMemberSchema = z.object({
  member: z.object({ role_id: roleId }, { error: "is required: send {member: {role_id}}" }),
});
export type UpdateMemberInput = z.infer<typeof updateMemberSchema>["member"];
