// Request shapes of sign-in. The console's login form and the OpenAPI document reuse them.
import { z } from "zod";
import { MIN_PASSWORD_LENGTH } from "@/lib/validation/members";

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

/** PUT /api/v1/users/me/password: the signed-in user's new password, proven by the current one. */
export const changePasswordSchema = z.object({
  current_password: z.string({ error: "is required" }).min(1, "is required").max(1024).describe("The password in use now."),
  password: z
    .string({ error: "is required" })
    .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
    .max(1024, "must be at most 1024 characters")
    .describe(`The new password: at least ${MIN_PASSWORD_LENGTH} characters and not too easy to guess (a strength estimate: no common passwords, repeats, sequences or keyboard rows).`),
});
export type ChangePasswordInput = z.infer<typeof changePasswordSchema>;
