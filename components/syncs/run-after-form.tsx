"use client";
// Picks the syncs this one runs after (any of the workspace's but itself) and saves the whole list.
import { zodResolver } from "@hookform/resolvers/zod";
import { useForm, useWatch } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/field";
import { InlineError } from "@/components/ui/states";
import { errorMessage, fieldErrors } from "@/lib/api-client/client";
import { useSetRunAfter } from "@/lib/api-client/sequences";
import type { Sync } from "@/lib/api-client/types";
import { setRunAfterSchema } from "@/lib/validation/sequences";
import { syncName } from "./syncs-list";

/** The API's words for a refused list: a cycle (named in run order) or a sync not of this workspace. */
function refusal(err: unknown): string | null {
  if (!err) return null;
  const message = fieldErrors(err, "run_after").sync_ids;
  return message ? `Cannot save: ${message}` : errorMessage(err);
}

export function RunAfterForm({ syncId, current, syncs, onDone }: { syncId: string; current: number[]; syncs: Sync[]; onDone: () => void }) {
  const save = useSetRunAfter(syncId);
  const form = useForm({ resolver: zodResolver(setRunAfterSchema), defaultValues: { run_after: { sync_ids: current } } });
  const chosen = useWatch({ control: form.control, name: "run_after.sync_ids" });
  const options = syncs.filter((s) => s.id !== syncId);
  const toggle = (id: number, on: boolean) =>
    form.setValue("run_after.sync_ids", on ? [...chosen, id] : chosen.filter((c) => c !== id), { shouldDirty: true });
  const submit = form.handleSubmit((values) => save.mutate(values.run_after.sync_ids, { onSuccess: onDone }));
  const invalid = form.formState.errors.run_after?.sync_ids?.message;

  return (
    <form onSubmit={submit} noValidate className="space-y-3" aria-label="Runs after">
      <fieldset>
        <legend className="mb-1 text-sm font-medium text-slate-700">Run this sync after</legend>
        <div className="max-h-48 space-y-1 overflow-y-auto rounded-md border border-slate-200 p-2">
          {options.map((s) => (
            <Checkbox key={s.id} label={syncName(s)} checked={chosen.includes(Number(s.id))} onChange={(e) => toggle(Number(s.id), e.target.checked)} />
          ))}
          {options.length === 0 && <p className="text-sm text-slate-500">This workspace has no other sync.</p>}
        </div>
        <p className="mt-1 text-xs text-slate-500">It starts when each chosen (enabled) sync&apos;s latest run has succeeded.</p>
      </fieldset>
      <InlineError message={invalid ? `Syncs ${invalid}` : refusal(save.error)} />
      <div className="flex justify-end gap-2">
        <Button variant="secondary" onClick={onDone}>Cancel</Button>
        <Button type="submit" loading={save.isPending}>Save</Button>
      </div>
    </form>
  );
}
