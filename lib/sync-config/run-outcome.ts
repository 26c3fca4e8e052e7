// A run's outcome as a person reads it ("succeeded with 10 rejected rows", "canceled by Ada"), derived
// from its status, counters and who canceled it. The status values stay the interface's
// (behaviour.md 5: a canceled run that had started ends `failed`); the outcome is a field beside them.
// Browser-safe: the serializers and the console share it.

/** Why a run that was stopped from outside ended failed (behaviour.md 7). */
export const CANCELED_ERROR = "Canceled before it finished; the rows sent until then are in its records.";
export const DISABLED_ERROR = "The sync was disabled before the run finished; the rows sent until then are in its records.";

export const RUN_OUTCOMES = ["running", "needs_approval", "succeeded", "succeeded_with_rejections", "failed", "canceled"] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

const ENDED = new Set(["success", "failed", "canceled"]);

export interface OutcomeFacts {
  status: string;
  failed_rows: number;
  error: string | null;
  canceled_by: string | null;
}

/**
 * running until it ends, except needs_approval while its sync's guard holds it (someone must
 * approve or cancel it); canceled when someone stopped it (a cancel, or disabling or deleting its
 * sync); succeeded_with_rejections when it ended success but the destination refused some rows.
 */
export function runOutcome(r: OutcomeFacts): RunOutcome {
  if (r.status === "needs_approval") return "needs_approval";
  if (!ENDED.has(r.status)) return "running";
  if (r.status === "canceled" || r.canceled_by !== null || r.error === CANCELED_ERROR || r.error === DISABLED_ERROR) return "canceled";
  if (r.status === "failed") return "failed";
  return r.failed_rows > 0 ? "succeeded_with_rejections" : "succeeded";
}

const rows = (n: number) => `${n.toLocaleString("en-US")} rejected row${n === 1 ? "" : "s"}`;

/** The outcome in words: "succeeded with 10 rejected rows", "canceled by Ada Lovelace". */
export function describeOutcome(outcome: RunOutcome, r: Pick<OutcomeFacts, "failed_rows" | "canceled_by">): string {
  switch (outcome) {
    case "succeeded_with_rejections":
      return `succeeded with ${rows(r.failed_rows)}`;
    case "canceled":
      return r.canceled_by ? `canceled by ${r.canceled_by}` : "canceled";
    case "needs_approval":
      return "needs approval";
    default:
      return outcome;
  }
}

/** Outcomes a person should look at: the run failed, the destination refused rows, or a held run waits for a decision. */
export const needsAttention = (outcome: RunOutcome | null | undefined): boolean =>
  outcome === "failed" || outcome === "succeeded_with_rejections" || outcome === "needs_approval";
