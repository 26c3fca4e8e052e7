// Accounts and the secrets that protect them. Part of envSchema (lib/settings/env.ts), in its order: the
// README lists them so.
import { integer, flag, text, textWithDefault } from "./kinds";

export const accountVariables = {
  // Accounts and secrets
  ADMIN_EMAIL: textWithDefault("admin@example.com", "first admin, created on an empty database"),
  ADMIN_PASSWORD: text(
    "password of that first admin; when unset a generated one is printed once",
    "generated",
  ),
  JWT_SECRET: text("HS256 key of access tokens; **required in production**", "generated into `DATA_DIR`"),
  JWT_EXPIRES_IN: integer(1, 3600, "session token lifetime, seconds"),
  ENCRYPTION_KEY: text(
    "AES-256-GCM key for connector secrets (32 bytes base64, or any string); **required in production**",
    "generated into `DATA_DIR`",
  ),
  NEXTAUTH_SECRET: text(
    "key of the console's session cookie (`AUTH_SECRET` is read too)",
    "derived from `JWT_SECRET`",
  ),
  AUTH_SECRET: text("the same as `NEXTAUTH_SECRET`, next-auth's newer name; `NEXTAUTH_SECRET` wins"),
  NEXTAUTH_URL: text(
    "public URL of the console for next-auth; unset = the request's host (next-auth is told to trust it)",
  ),
  SIGNUP_ENABLED: flag(
    false,
    "`1` = anyone who can reach the server may create an account (and a workspace of their own, as its Admin) with `POST /api/v1/signup`, signing in once their address is verified through a mailed link. Off: people join through an Admin's invitation, and sign-up answers 403",
  ),
  ORGANIZATION_NAME: textWithDefault(
    "Default organization",
    "the organization name workspaces show (`organization_name`; there is one implicit organization, id 1)",
  ),
};
