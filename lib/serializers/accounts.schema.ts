// Answers of the account endpoints, as ./accounts.ts builds them.
import { z } from "zod";
import { dateTime, resourceSchema } from "./resource";

/** {data: {type: "message", id: <fresh UUID>, attributes: {message}}}: the reference's message resource. */
export const messageResourceSchema = z
  .strictObject({ data: resourceSchema("message", z.strictObject({ message: z.string() })) })
  .meta({ id: "MessageResource" });
export type MessageResource = z.infer<typeof messageResourceSchema>;

export const signupResponseSchema = z.strictObject({
  data: resourceSchema(
    "users",
    z.strictObject({
      name: z.string(),
      email: z.string(),
      created_at: dateTime(),
      email_verification_enabled: z.literal(true),
      message: z.string(),
    }),
  ).describe("The id is an opaque reference for this sign-up, not the user's id."),
});
export type SignupBody = z.infer<typeof signupResponseSchema>;
