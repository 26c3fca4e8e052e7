// Request shapes of sign-in. The console's login form and the OpenAPI document reuse them.
import { z } from "zod";

export const loginSchema = z.object({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .email("must be an email address")
    .max(320)
    .describe("The account's email address."),
  password: z.string().min(1, "is required").max(1024).describe("The account's password."),
});
export type LoginInput = z.infer<typeof loginSchema>;
