"use client";
// A plan as a person reads it: what the run would insert, update, delete and skip (the counts), the
// blast-radius limits it would break, and a few sample rows per action with the payload the mapping
// makes of them. Used by the sync page's Plan dialog, the wizard's last step and a run's page.
import { count } from "@/components/common/format";
import { Stat } from "@/components/ui/card";
import type { PlanSample, SyncPlan } from "@/lib/api-client/types";

type Counts = SyncPlan["counts"];
type Action = keyof SyncPlan["samples"];

const ACTIONS: { action: Action; label: string; tone?: "green" | "red" | "amber" }[] = [
  { action: "insert", label: "Insert", tone: "green" },
  { action: "update", label: "Update" },
  { action: "delete", label: "Delete", tone: "red" },
  { action: "skip", label: "Skip", tone: "amber" },
];

/** The four action counts, then what is read but not sent. */
export function PlanCounts({ counts, tracked }: { counts: Counts; tracked: number }) {
  return (
    <div data-testid="plan-counts">
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        {ACTIONS.map(({ action, label, tone }) => (
          <Stat key={action} label={label} value={<span data-plan-count={action}>{count(counts[action])}</span>} tone={counts[action] > 0 ? tone : undefined} />
        ))}
      </dl>
      <p className="mt-2 text-sm text-slate-600">
        {count(counts.read)} rows read · {count(counts.unchanged)} unchanged · {count(tracked)} tracked before
        {counts.duplicate > 0 && ` · ${count(counts.duplicate)} repeated keys`}
        {counts.blank_key > 0 && ` · ${count(counts.blank_key)} without a key`}
      </p>
    </div>
  );
}

/** The limits a run would break now: it would stop for approval before writing. */
export function PlanExceeded({ exceeded }: { exceeded: string[] }) {
  if (exceeded.length === 0) return null;
  return (
    <div role="alert" className="rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900">
      <p className="font-semibold">A run now would stop for approval before writing anything:</p>
      <ul className="mt-1 list-disc pl-5">
        {exceeded.map((e) => (
          <li key={e}>it {e}</li>
        ))}
      </ul>
    </div>
  );
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

function Sample({ sample }: { sample: PlanSample }) {
  return (
    <li className="px-3 py-2">
      <details>
        <summary className="cursor-pointer text-sm">
          <span className="font-medium">key {sample.primary_key}</span>
          {sample.reason && <span className="ml-2 text-amber-800">{sample.reason}</span>}
          {sample.error && <span className="ml-2 text-red-700">mapping fails: {sample.error}</span>}
        </summary>
        <div className="mt-2 grid grid-cols-1 gap-2 md:grid-cols-2">
          {sample.row && (
            <div>
              <p className="text-xs font-semibold uppercase tracking-wide text-slate-500">Source row</p>
              <pre className="max-h-48 overflow-auto rounded bg-slate-50 p-2 text-xs">{json(sample.row)}</pre>
            </div>
          )}
          <div>
            <p className="text-xs font-semibold uppercase tracking-wide text-slate-500">Payload</p>
            <pre className="max-h-48 overflow-auto rounded bg-slate-50 p-2 text-xs">{sample.payload ? json(sample.payload) : "—"}</pre>
          </div>
        </div>
      </details>
    </li>
  );
}

/** Sample rows, one list per action that has any. */
export function PlanSamples({ samples, counts }: { samples: SyncPlan["samples"]; counts: Counts }) {
  const shown = ACTIONS.filter(({ action }) => samples[action].length > 0);
  if (shown.length === 0) return <p className="text-sm text-slate-500">Nothing to send: no sample rows.</p>;
  return (
    <div className="space-y-3">
      {shown.map(({ action, label }) => (
        <section key={action} aria-label={`${label} samples`}>
          <h4 className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-500">
            {label}: {samples[action].length} of {count(counts[action])}
          </h4>
          <ul className="divide-y divide-slate-100 rounded-md border border-slate-200">
            {samples[action].map((s) => (
              <Sample key={s.primary_key} sample={s} />
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

/** The whole plan: limits, counts, samples. */
export function PlanView({ plan }: { plan: SyncPlan }) {
  return (
    <div className="space-y-4" data-testid="plan">
      <PlanExceeded exceeded={plan.exceeded} />
      <PlanCounts counts={plan.counts} tracked={plan.tracked} />
      {plan.cursor && (
        <p className="text-sm text-slate-600">
          Incremental: reads {plan.cursor.field} from {plan.cursor.from ?? "the start"}.
        </p>
      )}
      <PlanSamples samples={plan.samples} counts={plan.counts} />
    </div>
  );
}
