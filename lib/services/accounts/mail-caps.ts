// Caps on how much mail one workspace, or one user across all their workspaces, can make the server
// send to addresses of their choosing (docs/security.md items 13 and 21):
//  - invitations: INVITATION_MAX_PER_WORKSPACE_PER_HOUR per workspace and
//    INVITATION_MAX_PER_USER_PER_HOUR per inviting user, on top of the per-address budget
//    (account-throttle.ts, throttleMailTo);
//  - workspace creation: WORKSPACE_MAX_CREATED_PER_USER_PER_DAY per user, so that a self-signed-up
//    Admin cannot multiply the per-workspace caps (invitations, alert confirmations) by creating
//    workspaces at will.
// The counters are the fixed windows of login_throttles (login-throttle.ts, reserveInWindow),
// shared by every web process.
import "server-only";
import { env } from "@/lib/settings/env";
import { RateLimited } from "@/lib/errors";
import { giveBack, reserveInWindow } from "./login-throttle";

const HOUR = 3600;
const DAY = 86_400;

function tooMany(what: string, seconds: number): RateLimited {
  const wait = Math.max(1, seconds);
  const minutes = Math.ceil(wait / 60);
  const text = wait < 60 ? `${wait} second${wait === 1 ? "" : "s"}` : `${minutes} minute${minutes === 1 ? "" : "s"}`;
  return new RateLimited(`${what} Try again in ${text}.`, { headers: { "Retry-After": String(wait) } });
}

/** A reservation that can be given back when what it was taken for did not happen. */
export interface Reservation {
  giveBack(): Promise<void>;
}

/**
 * Counts one invitation from `userId` in `workspaceId`; 429 with Retry-After when the workspace or
 * the user is past its hourly cap (nothing is counted then).
 */
export async function reserveInvitation(workspaceId: number, userId: number): Promise<Reservation> {
  const workspaceKey = `invite-ws:${workspaceId}`;
  const userKey = `invite-user:${userId}`;
  const perWorkspace = env.INVITATION_MAX_PER_WORKSPACE_PER_HOUR;
  const waitWorkspace = await reserveInWindow(workspaceKey, perWorkspace, HOUR);
  if (waitWorkspace !== null) {
    throw tooMany(
      `This workspace has sent ${perWorkspace} invitations this hour, its limit (INVITATION_MAX_PER_WORKSPACE_PER_HOUR).`,
      waitWorkspace,
    );
  }
  const perUser = env.INVITATION_MAX_PER_USER_PER_HOUR;
  const waitUser = await reserveInWindow(userKey, perUser, HOUR);
  if (waitUser !== null) {
    await giveBack(workspaceKey);
    throw tooMany(
      `You have sent ${perUser} invitations this hour from all your workspaces, your limit (INVITATION_MAX_PER_USER_PER_HOUR).`,
      waitUser,
    );
  }
  return {
    async giveBack() {
      await giveBack(workspaceKey);
      await giveBack(userKey);
    },
  };
}

/** Counts one workspace created by `userId`; 429 with Retry-After past WORKSPACE_MAX_CREATED_PER_USER_PER_DAY. */
export async function reserveWorkspaceCreation(userId: number): Promise<Reservation> {
  const key = `workspace-created:${userId}`;
  const limit = env.WORKSPACE_MAX_CREATED_PER_USER_PER_DAY;
  const wait = await reserveInWindow(key, limit, DAY);
  if (wait !== null) {
    throw tooMany(`You have created ${limit} workspaces today, your limit (WORKSPACE_MAX_CREATED_PER_USER_PER_DAY).`, wait);
  }
  return { giveBack: () => giveBack(key) };
}
