"use client";
// The confirmation before deleting a model or a connector: it lists, by name, exactly what goes with it
// (GET …/dependents, the plan the delete acts on), and keeps Delete disabled with the reason when the
// caller may not delete all of it.
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { ConfirmDialog } from "@/components/ui/dialog";
import { InlineError, Spinner } from "@/components/ui/states";
import { errorMessage } from "@/lib/api-client/client";
import { useDependents, type Dependents } from "@/lib/api-client/dependents";

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

function summary(d: Dependents, what: string): string {
  const parts = [d.models.length ? plural(d.models.length, "model") : "", d.syncs.length ? plural(d.syncs.length, "sync") : ""].filter(Boolean);
  if (parts.length === 0) return `No models or syncs use this ${what}. This cannot be undone.`;
  const running = d.syncs.some((s) => s.running) ? " Runs in progress are canceled." : "";
  return `Deleting it also deletes ${parts.join(" and ")}, with their runs and records.${running} This cannot be undone.`;
}

export function DependentsDialog({
  kind,
  id,
  name,
  open,
  onClose,
  onConfirm,
  loading,
}: {
  kind: "model" | "connector";
  id: string;
  name: string;
  open: boolean;
  onClose: () => void;
  onConfirm: () => void;
  loading: boolean;
}) {
  const dependents = useDependents(kind, id, open);
  const d = open ? dependents.data : undefined;
  const busy = open && dependents.isFetching && !d;
  return (
    <ConfirmDialog
      open={open}
      onClose={onClose}
      title={`Delete ${kind} “${name}”?`}
      description={d ? summary(d, kind) : busy ? `Looking for what uses this ${kind}…` : undefined}
      confirmLabel={d && d.syncs.length + d.models.length > 0 ? "Delete all" : "Delete"}
      loading={loading}
      disabled={!d || !d.may_delete}
      onConfirm={onConfirm}
    >
      {busy ? (
        <p className="flex items-center gap-2 text-slate-500">
          <Spinner className="h-4 w-4" /> Looking for models and syncs that use it…
        </p>
      ) : dependents.error ? (
        <InlineError message={errorMessage(dependents.error)} />
      ) : d ? (
        <div className="space-y-3" data-testid="delete-dependents">
          {!d.may_delete && d.refusal && (
            <p role="alert" className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-amber-900">
              {d.refusal}
            </p>
          )}
          {d.models.length > 0 && (
            <Section title={`Models deleted with it (${d.models.length})`}>
              {d.models.map((m) => (
                <li key={m.id}>
                  <Link className="text-indigo-700 hover:underline" href={`/models/${m.id}`}>
                    {m.name}
                  </Link>
                </li>
              ))}
            </Section>
          )}
          {d.syncs.length > 0 && (
            <Section title={`Syncs deleted with it (${d.syncs.length})`}>
              {d.syncs.map((s) => (
                <li key={s.id}>
                  <Link className="text-indigo-700 hover:underline" href={`/syncs/${s.id}`}>
                    {s.name || `Sync ${s.id}`}
                  </Link>{" "}
                  {s.running ? <Badge tone="amber">running: canceled</Badge> : <Badge>{s.status}</Badge>}
                </li>
              ))}
            </Section>
          )}
          {d.waiting_syncs.length > 0 && (
            <Section title={`Syncs that stop waiting for a deleted sync (${d.waiting_syncs.length})`}>
              {d.waiting_syncs.map((s) => (
                <li key={s.id}>
                  <Link className="text-indigo-700 hover:underline" href={`/syncs/${s.id}`}>
                    {s.name || `Sync ${s.id}`}
                  </Link>{" "}
                  <span className="text-slate-500">kept; it no longer runs after {d.syncs.filter((g) => s.run_after.includes(g.id)).map((g) => g.name || `sync ${g.id}`).join(", ")}</span>
                </li>
              ))}
            </Section>
          )}
        </div>
      ) : null}
    </ConfirmDialog>
  );
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div>
      <p className="font-medium">{title}</p>
      <ul className="mt-1 list-disc space-y-0.5 pl-5">{children}</ul>
    </div>
  );
}
