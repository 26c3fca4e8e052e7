// POST /api/v1/setup body, shared by the route, the first-run form and the OpenAPI document.
import { z } from "zod";
import { loginSchema } from "@/lib/validation/auth";
import { MIN_PASSWORD_LENGTH } from "@/lib/validation/members";

export const setupSchema = loginSchema.extend({
  name: z.string({ error: "is required" }).trim().min(1, "is required").max(100, "must be at most 100 characters"),
  password: z
    .string({ error: "is required" })
    .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
    .max(1024, "must be at most 1024 characters"),
  workspace_name: z.string().trim().max(100, "must be at most 100 characters").optional(),
});
export type SetupInput = z.infer<typeof setupSchema>;
