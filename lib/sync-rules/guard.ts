// The blast-radius guard: per-sync limits a general run checks against its plan before its first
// write (docs/plan-and-guard.md). Pure and browser-safe: the engine, the API and the console's
// settings form share the defaults and the wording of a limit exceeded.
import type { ConnectorCategoryName } from "@/lib/connectors/categories";
import type { WriteMode } from "./write-mode";
import { detectsDeletes } from "./write-mode";

/**
 * What syncs.guard stores (what the API was sent). A limit left out takes its default for the
 * sync's write mode; null turns it off. NULL in the column: every limit at its default.
 */
export interface GuardSettings {
  /** Most deletes allowed, as a percentage of the rows the sync tracked before the run. */
  max_delete_percent?: number | null;
  /** Most updates plus deletes allowed, as a percentage of the rows the sync tracked before the run. */
  max_change_percent?: number | null;
  /** Most updates plus deletes allowed, in rows: a cap on what one run may send (an API quota, a bill). */
  max_change_rows?: number | null;
  /** Refuse a complete read that found no row when the sync tracked rows before. */
  refuse_empty_extract?: boolean | null;
}

/** The limits in force for a sync (null: off). */
export interface EffectiveGuard {
  max_delete_percent: number | null;
  max_change_percent: number | null;
  max_change_rows: number | null;
  refuse_empty_extract: boolean;
}

/** Defaults when the sync deletes (mirror, or delete detection on): a broken or emptied model must not wipe the destination. */
export const DELETE_GUARD_DEFAULTS: EffectiveGuard = { max_delete_percent: 20, max_change_percent: null, max_change_rows: null, refuse_empty_extract: true };
/** Defaults when it never deletes: nothing to guard against by default. */
export const NO_DELETE_GUARD_DEFAULTS: EffectiveGuard = { max_delete_percent: null, max_change_percent: null, max_change_rows: null, refuse_empty_extract: false };
/**
 * The change limit a SaaS destination gets by default: a run that would update (or delete) more
 * than half of what the sync delivered is held. Every row sent there is an API call, often billed or
 * rate-limited, and such a run is usually one edit of the mapping re-sending the whole model.
 */
export const SAAS_MAX_CHANGE_PERCENT = 50;

/**
 * Destinations whose rows are API calls to someone's tool (a CRM, an ad or marketing platform, …).
 * Databases, warehouses, lakes, files, brokers and HTTP endpoints are not: a mass update there is an
 * ordinary, cheap run, and their syncs keep the limits they had (none on updates by default).
 */
const SAAS_CATEGORIES: ReadonlySet<ConnectorCategoryName> = new Set<ConnectorCategoryName>([
  "CRM",
  "Marketing Automation",
  "Ad-Tech",
  "Team Collaboration",
  "Productivity Tools",
  "Payments",
  "Customer Support",
  "Retail",
]);

export function isSaasCategory(category: string | null | undefined): boolean {
  return category != null && SAAS_CATEGORIES.has(category as ConnectorCategoryName);
}

export interface GuardedSync {
  writeMode: WriteMode;
  detectDeletes: boolean;
  guard: unknown;
  /** The destination's category (its definition's): a SaaS destination limits changes by default. Unknown: not SaaS. */
  destinationCategory?: string | null;
}

/** The defaults for the sync: the delete limits when it deletes, the change limit when it writes to a SaaS tool. */
export function guardDefaults(sync: Omit<GuardedSync, "guard">): EffectiveGuard {
  const base = detectsDeletes(sync) ? DELETE_GUARD_DEFAULTS : NO_DELETE_GUARD_DEFAULTS;
  return isSaasCategory(sync.destinationCategory) ? { ...base, max_change_percent: SAAS_MAX_CHANGE_PERCENT } : base;
}

/** A stored percentage: a finite number in 0–100, null (off); anything else counts as left out. */
const percent = (v: unknown) => (v === null ? null : typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= 100 ? v : undefined);
/** A stored row count: a whole number ≥ 0, null (off); anything else (1.5, -3, "10") counts as left out. */
const rows = (v: unknown) => (v === null ? null : typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : undefined);

/** The stored settings read defensively (the column is JSON: anything else counts as left out). */
export function guardSettings(stored: unknown): GuardSettings {
  if (stored === null || typeof stored !== "object" || Array.isArray(stored)) return {};
  const s = stored as Record<string, unknown>;
  return {
    max_delete_percent: percent(s.max_delete_percent),
    max_change_percent: percent(s.max_change_percent),
    max_change_rows: rows(s.max_change_rows),
    refuse_empty_extract: s.refuse_empty_extract === null ? null : typeof s.refuse_empty_extract === "boolean" ? s.refuse_empty_extract : undefined,
  };
}

export function effectiveGuard(sync: GuardedSync): EffectiveGuard {
  const defaults = guardDefaults(sync);
  const set = guardSettings(sync.guard);
  return {
    max_delete_percent: set.max_delete_percent === undefined ? defaults.max_delete_percent : set.max_delete_percent,
    max_change_percent: set.max_change_percent === undefined ? defaults.max_change_percent : set.max_change_percent,
    max_change_rows: set.max_change_rows === undefined ? defaults.max_change_rows : set.max_change_rows,
    refuse_empty_extract: set.refuse_empty_extract === undefined ? defaults.refuse_empty_extract : set.refuse_empty_extract === true,
  };
}

/**
 * Whether a general run of the sync must plan before it writes: some limit is in force that the
 * run could break (a delete limit only binds a sync that deletes).
 */
export function guardInForce(sync: GuardedSync): boolean {
  const g = effectiveGuard(sync);
  return (g.max_delete_percent !== null && detectsDeletes(sync)) || g.max_change_percent !== null || g.max_change_rows !== null || g.refuse_empty_extract;
}

/**
 * Whether every limit in force binds only a sync that tracks rows (the percentages and the empty
 * extract are measured against what it tracked before). Then a first run cannot break any of them,
 * and need not plan: max_change_rows is the one limit that counts from the first run on.
 */
export function onlyTrackedLimits(sync: GuardedSync): boolean {
  return effectiveGuard(sync).max_change_rows === null;
}

/** What a guard check needs from a plan. */
export interface GuardFacts {
  /** Rows the sync tracked before the run. */
  tracked: number;
  /** Rows with a usable key the run read (after duplicates). */
  keyed: number;
  update: number;
  delete: number;
  /** The run reads the whole model (no incremental cursor): only then is an empty read suspicious. */
  fullRead: boolean;
}

const n = (v: number) => v.toLocaleString("en-US");
const pct = (part: number, whole: number) => (whole === 0 ? 0 : (part * 100) / whole);
/** One decimal when it matters: 95%, 20.5%; never 0% for a non-zero share. */
const shown = (p: number) => `${p > 0 && p < 0.1 ? "<0.1" : Number(p.toFixed(1))}%`;

/**
 * The limits the plan breaks, each as the sentence a person reads ("would delete 950 of 1,000
 * tracked rows (95%), over the 20% limit"); empty when the run may go on. Percent limits need
 * tracked rows: a first sync (nothing tracked) cannot damage what it never wrote.
 */
export function guardViolations(guard: EffectiveGuard, facts: GuardFacts): string[] {
  const out: string[] = [];
  if (guard.refuse_empty_extract && facts.fullRead && facts.tracked > 0 && facts.keyed === 0) {
    out.push(`would run on an empty extract (the model returned no rows while the sync tracks ${n(facts.tracked)}), which is refused`);
  }
  if (facts.tracked > 0 && guard.max_delete_percent !== null && facts.delete > 0) {
    const p = pct(facts.delete, facts.tracked);
    if (p > guard.max_delete_percent) {
      out.push(`would delete ${n(facts.delete)} of ${n(facts.tracked)} tracked rows (${shown(p)}), over the ${guard.max_delete_percent}% limit`);
    }
  }
  const changed = facts.update + facts.delete;
  if (facts.tracked > 0 && guard.max_change_percent !== null && changed > 0) {
    const p = pct(changed, facts.tracked);
    if (p > guard.max_change_percent) {
      out.push(`would change ${n(changed)} of ${n(facts.tracked)} tracked rows (${shown(p)}: ${n(facts.update)} updates, ${n(facts.delete)} deletes), over the ${guard.max_change_percent}% limit`);
    }
  }
  // Rows, not a share: counted from the first run on (update mode's rows new to the sync are updates).
  if (guard.max_change_rows !== null && changed > guard.max_change_rows) {
    out.push(`would change ${n(changed)} rows (${n(facts.update)} updates, ${n(facts.delete)} deletes), over the limit of ${n(guard.max_change_rows)} rows`);
  }
  return out;
}

/** The run's error while it waits: the sentences joined, with what to do. */
export function approvalMessage(violations: readonly string[]): string {
  const what = violations.join("; ");
  return `Stopped before writing anything: it ${what}. Approve the run to go on, or cancel it.`;
}
