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
        .describe(
          "The person's email. They get a link there to accept (an address without an account chooses its password there); until then the membership is pending and gives no access.",
        ),
      // Both are required whether or not the email has an account: asking only for new accounts
      // would tell the inviter which emails are registered.
      name: z
        .string({ error: "is required" })
        .trim()
        .min(1, "must not be empty")
        .max(100, "must be at most 100 characters")
        .describe("The person's name, used when the email has no account yet."),
      // An inviter who chose the password could sign in as the invitee: only the address's owner
      // sets it, through the invitation link. Refused rather than ignored, so a client written for
      // the old behaviour learns its password is not the account's.
      password: z
        .unknown()
        .refine((v) => v === undefined, {
          message:
            "is not accepted: the person chooses their own password through the invitation link mailed to them (an account that exists keeps its own)",
        })
        .optional()
        .describe("Not accepted (a 422): the invited person sets their own password through the link mailed to them."),
      role_id: roleId,
    },
    { error: "is required: send {member: {email, name, role_id}}" },
  ),
});
export type CreateMemberInput = z.infer<typeof createMemberSchema>["member"];

export const updateMemberSchema = z.object({
  member: z.object({ role_id: roleId }, { error: "is required: send {member: {role_id}}" }),
});
export type UpdateMemberInput = z.infer<typeof updateMemberSchema>["member"];
