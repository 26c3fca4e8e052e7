import { ACTIVE_RUN_STATUSES } from "@/lib/sync-rules/statuses";
import { cn } from "./cn";

type Tone = "slate" | "green" | "red" | "amber" | "indigo" | "blue";

const tones: Record<Tone, string> = {
  slate: "bg-slate-100 text-slate-700 ring-slate-200",
  green: "bg-emerald-50 text-emerald-700 ring-emerald-200",
  red: "bg-red-50 text-red-700 ring-red-200",
  amber: "bg-amber-50 text-amber-800 ring-amber-200",
  indigo: "bg-indigo-50 text-indigo-700 ring-indigo-200",
  blue: "bg-sky-50 text-sky-700 ring-sky-200",
};

export function Badge({ tone = "slate", children, className }: { tone?: Tone; children: React.ReactNode; className?: string }) {
  return (
    <span className={cn("inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset", tones[tone], className)}>
      {children}
    </span>
  );
}

const STATUS_TONES: Record<string, Tone> = {
  healthy: "green",
  success: "green",
  failed: "red",
  aborted: "red",
  canceled: "amber",
  disabled: "slate",
  paused: "amber",
  needs_approval: "amber",
  pending: "slate",
  started: "blue",
  querying: "blue",
  queued: "blue",
  in_progress: "blue",
};

export function StatusBadge({ status }: { status: string | null | undefined }) {
  const s = status ?? "unknown";
  return (
    <Badge tone={STATUS_TONES[s] ?? "slate"}>
      {ACTIVE_RUN_STATUSES.has(s) && s !== "pending" && s !== "needs_approval" && <span className="mr-1 h-1.5 w-1.5 animate-pulse rounded-full bg-current" aria-hidden />}
      {s.replace(/_/g, " ")}
    </Badge>
  );
}
