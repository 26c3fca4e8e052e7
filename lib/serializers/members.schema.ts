// The member resource, as serializeMember (./members.ts) builds it.
import { z } from "zod";
import { dateTime, resourceSchema } from "./resource";

export const memberAttributesSchema = z.strictObject({
  user_id: z.number().int(),
  email: z.string(),
  name: z.string().nullable().describe("null until the person has accepted the invitation (joined_at)."),
  workspace_id: z.number().int(),
  role_id: z.number().int(),
  role_name: z.string(),
  status: z
    .enum(["pending", "active"])
    .describe("pending: invited, not accepted yet (the membership gives no access until the person accepts through the link mailed to them)."),
  joined_at: dateTime().nullable().describe("When the person accepted the invitation; null while pending."),
  last_login_at: dateTime().nullable().describe("null until the person has accepted the invitation (joined_at)."),
  created_at: dateTime(),
  updated_at: dateTime(),
});
export type MemberAttributes = z.infer<typeof memberAttributesSchema>;
export const memberSchema = resourceSchema("members", memberAttributesSchema)
  .describe("A membership; its id is the user's id.")
  .meta({ id: "Member" });
export type MemberResource = z.infer<typeof memberSchema>;
