// Request shapes of the API token endpoints (shared by the console form and the OpenAPI document).
import { z } from "zod";
import { intId } from "./ids";

export const createApiTokenSchema = z.object({
  api_token: z.object(
    {
      name: z
        .string({ error: "is required" })
        .trim()
        .min(1, "must not be empty")
        .max(100, "must be at most 100 characters")
        .describe('What the token is for, e.g. "CI deploys".'),
      role_id: intId(
        "A narrower role for the token; it never exceeds your own rights. Absent: your role in the workspace (when an API token creates the token: that token's own role).",
        "a role id",
      ).nullish(),
      expires_at: z.iso
        .datetime({ offset: true, error: "must be an ISO 8601 date-time, e.g. 2027-01-31T00:00:00Z" })
        .nullish()
        .describe(
          "When the token stops working (ISO 8601). Absent: never expires; revoke it instead. When an API token creates the token: at most that token's expiry (absent: the same; later: 403).",
        ),
    },
    { error: "is required: send {api_token: {name, role_id?, expires_at?}}" },
  ),
});
export type CreateApiTokenInput = z.infer<typeof createApiTokenSchema>["api_token"];
