// Sign-in and account throttling, and what one user or workspace can make the server mail. Part of
// envSchema (lib/settings/env.ts), in its order: the README lists them so.
import { integer } from "./kinds";

export const throttlingVariables = {
  // Sign-in and account throttling
  LOGIN_MAX_FAILURES_PER_ACCOUNT_ADDRESS: integer(
    1,
    10,
    "failed sign-ins of one account from one address before each further attempt from there waits (429 with Retry-After), the wait doubling from `LOGIN_BACKOFF_BASE_SECONDS` up to the window; other addresses are not affected",
  ),
  LOGIN_BACKOFF_BASE_SECONDS: integer(1, 15, "the first of those waits, seconds"),
  LOGIN_MAX_FAILURES_PER_IP: integer(
    1,
    50,
    "failed sign-ins from one address per window before it may only sign in to accounts that signed in from it before",
  ),
  LOGIN_THROTTLE_WINDOW_SECONDS: integer(
    1,
    900,
    "the window of those counts, seconds; also how long a quiet account+address counter is kept",
  ),
  ACCOUNT_MAX_REQUESTS_PER_IP: integer(
    1,
    20,
    "account requests (sign-up, forgot/reset password, verify, resend) from one address per `LOGIN_THROTTLE_WINDOW_SECONDS`; beyond it, 429 with `Retry-After`",
  ),
  ACCOUNT_MAX_MAILS_PER_EMAIL: integer(
    1,
    5,
    "account requests naming one email address (counted whether or not it has an account) per `LOGIN_THROTTLE_WINDOW_SECONDS`; beyond it, 429 with `Retry-After`",
  ),
  // What one user or workspace can make the server mail (lib/services/accounts/mail-caps.ts)
  INVITATION_MAX_PER_WORKSPACE_PER_HOUR: integer(
    1,
    50,
    "invitations (`POST /api/v1/workspaces/{id}/members`) one workspace may send per hour; beyond it, 429 with `Retry-After`",
  ),
  INVITATION_MAX_PER_USER_PER_HOUR: integer(
    1,
    100,
    "invitations one user may send per hour from all their workspaces together; beyond it, 429 with `Retry-After`",
  ),
  WORKSPACE_MAX_CREATED_PER_USER_PER_DAY: integer(
    1,
    10,
    "workspaces one user may create per day (`POST /api/v1/workspaces`), so that creating workspaces does not multiply the per-workspace mail caps; beyond it, 429 with `Retry-After`",
  ),
};
