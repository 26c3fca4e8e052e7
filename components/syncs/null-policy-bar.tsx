"use client";
// Sets "if empty" (null_policy) on every selected mapping at once: a model with forty columns is
// not forty dropdowns. Static values have none, so they are never selected.
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Select } from "@/components/ui/field";
import type { NullPolicy } from "@/lib/api-client/types";

export function NullPolicyBar({ selected, onApply }: { selected: number; onApply: (policy: NullPolicy) => void }) {
  const [policy, setPolicy] = useState<NullPolicy>("skip");
  return (
    <div
      role="group"
      aria-label="Null policy of several mappings"
      data-testid="bulk-null-policy"
      className="flex flex-wrap items-center gap-2 rounded-md bg-slate-50 px-3 py-2 text-sm text-slate-700"
    >
      <span aria-live="polite">{selected === 0 ? "Select mappings to set what an empty value does for all of them." : `${selected} selected: if empty,`}</span>
      <div className="w-52">
        <Select aria-label="If empty, for the selected mappings" value={policy} disabled={selected === 0} onChange={(e) => setPolicy(e.target.value === "write" ? "write" : "skip")}>
          <option value="write">write null</option>
          <option value="skip">keep destination value</option>
        </Select>
      </div>
      <Button size="sm" variant="secondary" disabled={selected === 0} onClick={() => onApply(policy)}>
        Apply to selected
      </Button>
    </div>
  );
}
