// Who may read who did what: the name of the member who canceled a run (sync_runs.canceled_by) is
// the kind of fact the member list and the audit log hold, so it shows only to callers who may read
// one of them; anyone else sees that the run was canceled, not by whom.
import { can, type Policies } from "./permissions";

export interface ActorAccess {
  /** Names of the members who acted (canceled_by) are shown; else null. */
  actors: boolean;
}

export const actorAccess = (auth: { policies: Policies }): ActorAccess => ({
  actors: can(auth.policies, "user", "read") || can(auth.policies, "audit_log", "read"),
});
