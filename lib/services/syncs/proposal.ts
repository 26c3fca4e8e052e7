// Unsaved changes a plan is computed with (POST /syncs/{id}/plan with `sync`): checked as an update
// would check them, so a plan never shows what a save would refuse. Proposing changes is editing:
// it needs sync.update beside the plan's own permission (a role that may run a sync but not change
// it must not learn what a mapping of its choosing would send).
import "server-only";
import { can } from "@/lib/auth/permissions";
import { prisma } from "@/lib/db/client";
import type { SyncProposal } from "@/lib/engine";
import { mayNot } from "@/lib/auth/refusal";
import { Forbidden, ValidationFailed, type FieldError } from "@/lib/errors";
import type { Prisma, Sync } from "@/lib/generated/prisma/client";
import type { ProposedSyncInput } from "@/lib/validation/syncs";
import type { AuthContext } from "../accounts/auth-context";
import { configurationErrors, storedGuard } from "./fields";
import { resolveWriteMode } from "./write-mode";

type Auth = Pick<AuthContext, "workspaceId" | "policies" | "roleName" | "apiToken">;

/** 403 unless the caller may update syncs (naming the role that refuses: a token's own, or its owner's). */
export function assertMayPropose(auth: Auth): void {
  if (!can(auth.policies, "sync", "update")) {
    throw new Forbidden(`${mayNot(auth, "update syncs", [["sync", "update"]])}, so it may plan only the saved sync: leave out "sync".`);
  }
}

/** The proposal as the sync's columns, or a 422 naming each field a save would refuse. */
export async function syncProposal(auth: Auth, existing: Sync, input: ProposedSyncInput): Promise<SyncProposal> {
  const errors: FieldError[] = input.configuration === undefined ? [] : configurationErrors(input.configuration);
  const writeMode =
    input.write_mode === undefined ? undefined : await resolveWriteMode(prisma(), auth.workspaceId, existing.destinationId, input.write_mode, existing.writeMode);
  if (writeMode) errors.push(...writeMode.errors);
  if (errors.length > 0) throw ValidationFailed.fromFields(errors);
  const proposal: SyncProposal = {};
  if (input.configuration !== undefined) proposal.configuration = (input.configuration ?? []) as Prisma.JsonValue;
  if (input.sync_mode !== undefined) proposal.syncMode = input.sync_mode;
  if (writeMode) proposal.writeMode = writeMode.mode;
  if (input.detect_deletes !== undefined) proposal.detectDeletes = input.detect_deletes;
  // As updateSync stores it: null or {} back to the defaults, else only the limits sent.
  if (input.guard !== undefined) proposal.guard = storedGuard(input.guard);
  return proposal;
}
