// Signing in and out, the signed-in user, accounts (sign-up, verification, password reset) and API tokens.
import { z } from "zod";
import { listSchema, pageQuery } from "@/lib/http/pagination";
import { messageResourceSchema, signupResponseSchema } from "@/lib/serializers/accounts.schema";
import { apiTokenSchema, createdApiTokenSchema } from "@/lib/serializers/api-tokens.schema";
import { currentUserSchema, passwordChangedSchema, tokenDocumentSchema } from "@/lib/serializers/auth.schema";
import {
  acceptInvitationSchema,
  forgotPasswordSchema,
  resendVerificationSchema,
  resetPasswordSchema,
  signupSchema,
  verifyUserQuerySchema,
} from "@/lib/validation/accounts";
import { createApiTokenSchema } from "@/lib/validation/api-tokens";
import { changePasswordSchema, loginSchema } from "@/lib/validation/auth";
import { idParam } from "@/lib/validation/ids";
import { operation } from "./operation";

/** next-auth's catch-all route, which answers GET and POST alike (the console's, not the API's). */
const nextAuth = (method: "get" | "post") =>
  operation({
    operationId: method === "get" ? "nextAuthGet" : "nextAuthPost",
    method,
    path: "/api/auth/{nextauth}",
    tag: "Authentication",
    summary: "Console sign-in internals (next-auth); not for API clients",
    permission: "public",
    status: 200,
    produces: { mediaType: "application/json", description: "next-auth responses." },
    external: true,
    ...(method === "post" ? { redirects: "next-auth sends a form post without its own CSRF token (or a sign-out) back to a console page." } : {}),
  });

export const authentication = {
  login: operation({
    operationId: "login",
    method: "post",
    path: "/api/v1/login",
    tag: "Authentication",
    summary: "Exchange email and password for a bearer JWT",
    permission: "public",
    body: loginSchema,
    status: 200,
    response: tokenDocumentSchema,
    errors: [401, 429],
    notes: "401 for wrong credentials, 429 with Retry-After after too many failures.",
  }),
  logout: operation({
    operationId: "logout",
    method: "delete",
    path: "/api/v1/logout",
    tag: "Authentication",
    summary: "Revoke the session token of this request",
    permission: "user",
    status: 200,
    response: messageResourceSchema.extend({ message: z.string() }),
  }),
  getCurrentUser: operation({
    operationId: "getCurrentUser",
    method: "get",
    path: "/api/v1/users/me",
    tag: "Authentication",
    summary: "The signed-in user, its role here and its workspaces",
    permission: "user",
    status: 200,
    response: currentUserSchema,
    notes: '"Here" is the Workspace-Id workspace when you are a member of it, else your default one (never a 404).',
  }),
  changePassword: operation({
    operationId: "changePassword",
    method: "put",
    path: "/api/v1/users/me/password",
    tag: "Authentication",
    summary: "Change the signed-in user's password; every other session ends and every API token is revoked",
    permission: "user",
    body: changePasswordSchema,
    status: 200,
    response: passwordChangedSchema,
    errors: [403, 429],
    notes:
      "Answers a fresh session token and a sentence saying what ended (sessions issued before the change no longer work, and every API token of the account, in every workspace, is revoked). 403 with an API token, 422 for a wrong current_password or a common new one, 429 with Retry-After after too many wrong current passwords.",
  }),
  nextAuthGet: nextAuth("get"),
  nextAuthPost: nextAuth("post"),
};

export const accounts = {
  signup: operation({
    operationId: "signup",
    method: "post",
    path: "/api/v1/signup",
    tag: "Accounts",
    summary: "Create an account and a workspace of your own (when the server allows sign-up)",
    permission: "public",
    body: signupSchema,
    status: 201,
    response: signupResponseSchema,
    errors: [403, 429],
    notes:
      "A verification link is mailed; signing in works once the address is verified. The same answer when the address has an account already (that account is not changed; its owner gets a mail). 403 unless the operator set SIGNUP_ENABLED=1; 429 with Retry-After when throttled.",
  }),
  forgotPassword: operation({
    operationId: "forgotPassword",
    method: "post",
    path: "/api/v1/forgot_password",
    tag: "Accounts",
    summary: "Mail a password reset link (valid once, for an hour)",
    permission: "public",
    body: forgotPasswordSchema,
    status: 200,
    response: messageResourceSchema,
    errors: [429],
    notes:
      "The same answer whether or not an account uses the address. On a server without SMTP_URL no mail goes out: the message says so and sends the person to an administrator (`npm run admin -- reset-password EMAIL`, or the reset link written to the server's log). 429 with Retry-After when throttled.",
  }),
  resetPassword: operation({
    operationId: "resetPassword",
    method: "post",
    path: "/api/v1/reset_password",
    tag: "Accounts",
    summary: "Set a new password with the token of a reset link; every session ends and every API token is revoked",
    permission: "public",
    body: resetPasswordSchema,
    status: 200,
    response: messageResourceSchema,
    errors: [429],
    notes: "422 for a used, replaced, expired or unknown token, a confirmation that does not match, or a common password.",
  }),
  acceptInvitation: operation({
    operationId: "acceptInvitation",
    method: "post",
    path: "/api/v1/accept_invitation",
    tag: "Accounts",
    summary: "Accept a workspace invitation with the token of its link (a new account also chooses its password)",
    permission: "public",
    body: acceptInvitationSchema,
    status: 200,
    response: messageResourceSchema,
    errors: [429],
    notes:
      "The membership gives access from now on. An account without a password (the link says new_account=1) sends password and password_confirmation: they become its password, and its address counts as verified. An account with a password sends it (422 when it is not the account's; 429 after too many, like sign-in). 422 for a used, expired or unknown token.",
  }),
  verifyUser: operation({
    operationId: "verifyUser",
    method: "get",
    path: "/api/v1/verify_user",
    tag: "Accounts",
    summary: "Verify an account's email address with the token of its verification link",
    permission: "public",
    query: verifyUserQuerySchema,
    status: 200,
    response: messageResourceSchema,
    errors: [422, 429],
    notes: "422 for a used, expired or unknown token.",
  }),
  resendVerification: operation({
    operationId: "resendVerification",
    method: "post",
    path: "/api/v1/resend_verification",
    tag: "Accounts",
    summary: "Mail a new verification link",
    permission: "public",
    body: resendVerificationSchema,
    status: 200,
    response: messageResourceSchema,
    errors: [429],
    notes: "The same answer whether or not the address has an account waiting for verification. 429 with Retry-After when throttled.",
  }),
};

export const apiTokens = {
  listApiTokens: operation({
    operationId: "listApiTokens",
    method: "get",
    path: "/api/v1/api_tokens",
    tag: "API tokens",
    summary: "List API tokens (yours; all of the workspace for user managers), never the token itself",
    permission: ["api_token", "read"],
    query: pageQuery,
    status: 200,
    response: listSchema(apiTokenSchema),
  }),
  createApiToken: operation({
    operationId: "createApiToken",
    method: "post",
    path: "/api/v1/api_tokens",
    tag: "API tokens",
    summary: "Create an API token (shown once)",
    permission: ["api_token", "create"],
    body: createApiTokenSchema,
    status: 201,
    response: z.strictObject({ data: createdApiTokenSchema }),
    notes:
      "The token is never shown again. 403 when role_id grants more than your rights, or, when an API token calls, when expires_at is later than its own.",
  }),
  revokeApiToken: operation({
    operationId: "revokeApiToken",
    method: "delete",
    path: "/api/v1/api_tokens/{id}",
    tag: "API tokens",
    summary: "Revoke an API token; it stops working at once",
    permission: ["api_token", "delete"],
    params: z.object({ id: idParam }),
    status: 204,
  }),
};
