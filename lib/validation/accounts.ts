// Request shapes of the public account endpoints: sign-up, password reset and email verification.
// Members and names follow the reference console (ui/src/services/authentication.ts) and the
// reference's auth contracts: password + password_confirmation, reset_password_token,
// confirmation_token, company_name.
import { z } from "zod";
import { loginSchema } from "./auth";
import { MIN_PASSWORD_LENGTH } from "./members";

const email = loginSchema.shape.email;

/** Tokens are 43 characters (32 random bytes, base64url); anything much longer is not one of ours. */
const token = (what: string) =>
  z
    .string({ error: "is required" })
    .trim()
    .min(1, "is required")
    .max(200, "is not a valid token")
    .describe(`The ${what} token from the link in the mail.`);

const newPassword = z
  .string({ error: "is required" })
  .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(1024, "must be at most 1024 characters")
  .describe(`The new password: at least ${MIN_PASSWORD_LENGTH} characters and not too easy to guess (a strength estimate: no common passwords, repeats, sequences or keyboard rows).`);

const confirmation = z
  .string({ error: "is required" })
  .max(1024, "must be at most 1024 characters")
  .describe("The new password again.");

const matching = <T extends { password: string; password_confirmation: string }>(v: T) =>
  v.password === v.password_confirmation;
const mismatch = { message: "does not match password", path: ["password_confirmation"] };

export const signupSchema = z
  .object({
    name: z
      .string({ error: "is required" })
      .trim()
      .min(1, "must not be empty")
      .max(100, "must be at most 100 characters")
      .describe("Your name."),
    email,
    password: newPassword,
    password_confirmation: confirmation,
    company_name: z
      .string({ error: "must be a string" })
      .trim()
      .max(100, "must be at most 100 characters")
      .optional()
      .describe("Names the workspace created for you (default: Default)."),
  })
  .refine(matching, mismatch);
export type SignupInput = z.infer<typeof signupSchema>;

export const forgotPasswordSchema = z.object({ email });
export type ForgotPasswordInput = z.infer<typeof forgotPasswordSchema>;

export const resetPasswordSchema = z
  .object({
    reset_password_token: token("password reset"),
    password: newPassword,
    password_confirmation: confirmation,
  })
  .refine(matching, mismatch);
export type ResetPasswordInput = z.infer<typeof resetPasswordSchema>;

export const verifyUserQuerySchema = z.object({
  confirmation_token: token("verification"),
  // The reference's verification link also carries the address; it is not needed to verify.
  email: z.string().max(320).optional().describe("Ignored; the reference's links carry it."),
});
export type VerifyUserQuery = z.infer<typeof verifyUserQuerySchema>;

export const resendVerificationSchema = z.object({ email });
export type ResendVerificationInput = z.infer<typeof resendVerificationSchema>;

/**
 * Accepting an invitation with the token of its link, and the account's password: a new account
 * (the link says new_account=1) chooses it, with its confirmation; an existing one proves it.
 */
export const acceptInvitationSchema = z
  .object({
    invitation_token: token("invitation"),
    password: z
      .string({ error: "is required" })
      .min(1, "is required")
      .max(1024, "must be at most 1024 characters")
      .describe(
        `The account's password. A new account (the link says new_account=1) chooses it here: at least ${MIN_PASSWORD_LENGTH} characters and not easy to guess, sent again as password_confirmation. An existing account sends its current password, to show the account is the link's owner's.`,
      ),
    password_confirmation: confirmation.optional().describe("A new account's password again."),
  })
  .refine((v) => v.password_confirmation === undefined || v.password === v.password_confirmation, mismatch);
export type AcceptInvitationInput = z.infer<typeof acceptInvitationSchema>;
