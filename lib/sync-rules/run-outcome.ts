// What a run came to, as a person reads it, derived in ONE place (runTruth) for every view: the run's
// page, the runs table, its sync's badge and "last run", the dashboard (charts and lists), alerts and
// webhooks. The status values stay the interface's (a canceled run that had started ends
// `failed`, docs/architecture.md); the outcome is a field beside them. Browser-safe: the serializers, the reports
// service and the console share it.

/** Why a run that was stopped from outside ended failed (docs/architecture.md). */
export const CANCELED_ERROR = "Canceled before it finished; the rows sent until then are in its records.";
export const DISABLED_ERROR = "The sync was disabled before the run finished; the rows sent until then are in its records.";
/** The errors that mark a run someone stopped (the reports service groups runs by them). */
export const STOPPED_ERRORS: readonly string[] = [CANCELED_ERROR, DISABLED_ERROR];

export const RUN_OUTCOMES = ["running", "needs_approval", "succeeded", "succeeded_with_rejections", "failed", "canceled"] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

/** The statuses of a run that ended. */
export const ENDED_STATUSES = ["success", "failed", "canceled"] as const;
const ENDED = new Set<string>(ENDED_STATUSES);

export interface OutcomeFacts {
  status: string;
  failed_rows: number;
  error: string | null;
  canceled_by: string | null;
  /** `test`: a one-row test, never a failure of its sync. Left out: a general run. */
  sync_run_type?: string;
  /** Rows the destination accepted: whether a canceled run wrote anything. Left out: not known. */
  successful_rows?: number;
  /** Whether someone approved it after its sync's limits held it; who, when the caller may know. */
  approved?: boolean;
  approved_by?: string | null;
  /** Its plan broke its sync's limits (it was held): a canceled one was canceled while held. */
  held?: boolean;
}

/**
 * running until it ends, except needs_approval while its sync's guard holds it (someone must
 * approve or cancel it); canceled when someone stopped it (a cancel, or disabling or deleting its
 * sync); succeeded_with_rejections when it ended success but the destination refused some rows.
 */
export function runOutcome(r: OutcomeFacts): RunOutcome {
  if (r.status === "needs_approval") return "needs_approval";
  if (!ENDED.has(r.status)) return "running";
  if (r.status === "canceled" || r.canceled_by !== null || (r.error !== null && STOPPED_ERRORS.includes(r.error))) return "canceled";
  if (r.status === "failed") return "failed";
  return r.failed_rows > 0 ? "succeeded_with_rejections" : "succeeded";
}

export type OutcomeTone = "green" | "amber" | "red" | "slate" | "blue";

/** Everything a view says about a run, from runTruth. */
export interface RunTruth {
  outcome: RunOutcome;
  /** The outcome in words, for a badge: "succeeded with 30 rejected rows", "canceled by Ada". */
  label: string;
  /** Facts beside it, in the order read: "approved by Ada", "nothing written", "test". */
  details: string[];
  /** label and details in one line: what every view shows ("canceled by Ada · nothing written"). */
  text: string;
  tone: OutcomeTone;
  /** Someone should look at it: it failed, the destination refused rows, or it waits for a decision. Never a test. */
  attention: boolean;
  /** Counted as a failure (the dashboard): a general run that failed. Not a cancel, not a test. */
  failure: boolean;
}

const TONES: Record<RunOutcome, OutcomeTone> = {
  succeeded: "green",
  succeeded_with_rejections: "amber",
  failed: "red",
  canceled: "slate",
  running: "blue",
  needs_approval: "amber",
};

const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

function label(outcome: RunOutcome, r: OutcomeFacts): string {
  switch (outcome) {
    case "succeeded_with_rejections":
      return `succeeded with ${count(r.failed_rows, "rejected row")}`;
    case "canceled":
      return r.canceled_by ? `canceled by ${r.canceled_by}` : "canceled";
    case "needs_approval":
      return "needs approval";
    default:
      return outcome;
  }
}

function details(outcome: RunOutcome, r: OutcomeFacts): string[] {
  const out: string[] = [];
  if (r.approved) out.push(r.approved_by ? `approved by ${r.approved_by}` : "approved");
  else if (r.held && outcome === "canceled") out.push("not approved");
  if (outcome === "canceled" && r.successful_rows !== undefined)
    out.push(r.successful_rows > 0 ? `${count(r.successful_rows, "row")} written before the cancel` : "nothing written");
  if (r.sync_run_type === "test") out.push("test");
  return out;
}

/** The one derivation every view of a run uses. */
export function runTruth(r: OutcomeFacts): RunTruth {
  const outcome = runOutcome(r);
  const test = r.sync_run_type === "test";
  const words = label(outcome, r);
  const more = details(outcome, r);
  return {
    outcome,
    label: words,
    details: more,
    text: [words, ...more].join(" · "),
    tone: TONES[outcome],
    attention: !test && (outcome === "failed" || outcome === "succeeded_with_rejections" || outcome === "needs_approval"),
    failure: !test && outcome === "failed",
  };
}

/** The outcome in words: "succeeded with 10 rejected rows", "canceled by Ada Lovelace". */
export function describeOutcome(outcome: RunOutcome, r: Pick<OutcomeFacts, "failed_rows" | "canceled_by">): string {
  return label(outcome, { status: "", error: null, ...r });
}

/** A sync as its badge reads it: its status, its latest run and its latest general run that ended. */
export interface SyncFacts {
  status: string;
  last_run: OutcomeFacts | null;
  last_outcome: OutcomeFacts | null;
}

export interface SyncTruth {
  /** "healthy", "needs attention", "needs approval", "failed", "disabled", … */
  label: string;
  tone: OutcomeTone;
  attention: boolean;
  /** Why, when it needs attention: the run outcome that makes it so. */
  reason: string | null;
}

const SYNC_TONES: Record<string, OutcomeTone> = { healthy: "green", failed: "red", aborted: "red", disabled: "slate", pending: "slate" };

/**
 * A sync's badge. Its status says whether it runs (healthy, failed, disabled, …); a healthy sync
 * whose latest general run had rows refused or failed, or whose run waits for approval, needs
 * attention all the same. Test runs and cancels never make a sync need attention.
 */
export function syncTruth(s: SyncFacts): SyncTruth {
  if (s.status === "disabled") return { label: "disabled", tone: "slate", attention: false, reason: null };
  if (s.last_run && runOutcome(s.last_run) === "needs_approval")
    return { label: "needs approval", tone: "amber", attention: true, reason: "its latest run waits for someone to approve or cancel it" };
  if (s.status === "failed" || s.status === "aborted") {
    const last = s.last_outcome ? runTruth(s.last_outcome) : null;
    return { label: s.status, tone: "red", attention: true, reason: last ? `its latest run ${last.text}` : null };
  }
  const last = s.last_outcome ? runTruth(s.last_outcome) : null;
  if (last?.attention) return { label: "needs attention", tone: last.tone === "red" ? "red" : "amber", attention: true, reason: `its latest run ${last.text}` };
  return { label: s.status.replace(/_/g, " "), tone: SYNC_TONES[s.status] ?? "slate", attention: false, reason: null };
}

/**
 * What a run's plan card says about its approval: who let it go on, or that nobody did (a held run
 * canceled before anyone approved it wrote nothing), or that it stayed within its limits.
 */
export function approvalSentence(r: OutcomeFacts): string {
  const truth = runTruth(r);
  if (r.approved) return `Approved by ${r.approved_by ?? "a member"}: it ran within the approved plan.`;
  if (truth.outcome === "needs_approval") return "Held: it waits for someone to approve or cancel it.";
  if (r.held && truth.outcome === "canceled") {
    const wrote = r.successful_rows ? `after writing ${count(r.successful_rows, "row")}` : "before writing anything";
    return `Held for approval; nobody approved it. ${r.canceled_by ? `Canceled by ${r.canceled_by}` : "Canceled"} ${wrote}.`;
  }
  if (r.held) return "Held for approval; nobody approved it.";
  return "Within the sync's limits.";
}
