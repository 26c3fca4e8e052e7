// A sync entry's run_after list (docs/config-as-code.md, docs/orchestration.md): the syncs, by slug,
// that must succeed before it runs. Written through the run-after service after every create and
// update of the file (an entry may name a sync the file creates later), in two passes so the cycle
// check sees the file's graph, not a mix of old and new: first every list loses the syncs it no
// longer names, then every list gains the new ones. A cycle is the service's 422, naming the entry.
import "server-only";
import type { FieldChange } from "@/lib/config-as-code/diff";
import type { Sync } from "@/lib/generated/prisma/client";
import type { ConfigSync } from "@/lib/validation/config";
import type { Known, Matches, WorkspaceConfig } from "./state";
import { canonical, idOf, slugSet, type Step, type StepContext } from "./step";
import { setRunAfter } from "../syncs/run-after";

export interface RunAfterChange {
  fields: FieldChange[];
  passes?: Step["passes"];
}

export function runAfterChange(entry: ConfigSync, known: Known<Sync, ConfigSync> | undefined, matches: Matches, state: WorkspaceConfig): RunAfterChange {
  const slugs = entry.run_after;
  if (slugs === undefined) return { fields: [] };
  const wanted = slugSet(slugs.map((s) => canonical(matches, "syncs", s)));
  const before = known ? slugSet(known.entry.run_after ?? []) : [];
  if (wanted.join(",") === before.join(",")) return { fields: [] };
  const upstream = known ? (state.runAfter.get(known.id) ?? []) : [];
  const target = (ctx: StepContext) => [...new Set(slugs.map((s) => idOf(ctx, "syncs", s)))];
  return {
    fields: [{ field: "run_after" }],
    passes: [
      async (ctx, id) => {
        const ids = target(ctx);
        const kept = upstream.filter((u) => ids.includes(u));
        if (kept.length < upstream.length) await setRunAfter(ctx.auth, id, { run_after: { sync_ids: kept } }, ctx.tx);
      },
      async (ctx, id) => {
        const ids = target(ctx);
        if (ids.some((u) => !upstream.includes(u))) await setRunAfter(ctx.auth, id, { run_after: { sync_ids: ids } }, ctx.tx);
      },
    ],
  };
}
