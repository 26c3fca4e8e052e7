"use client";
// The wizard's last step after "Create and preview first run": the plan of the new sync's first run
// (all inserts: the counts and the payloads the mapping makes), then run it or open the sync.
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { Button, LinkButton } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { InlineError, LoadingState } from "@/components/ui/states";
import { errorMessage } from "@/lib/api-client/client";
import { usePlanSync } from "@/lib/api-client/plans";
import { useRunSync } from "@/lib/api-client/syncs";
import type { Sync } from "@/lib/api-client/types";
import { PlanView } from "../plan-view";

export function FirstRunPlan({ sync }: { sync: Sync }) {
  const router = useRouter();
  const plan = usePlanSync(sync.id);
  const run = useRunSync(sync.id);
  const { mutate } = plan;
  useEffect(() => mutate(undefined), [mutate]);
  return (
    <Card>
      <CardHeader title="Sync created: the plan of its first run" description="What its first run would send, computed now; nothing was written yet." />
      <CardBody className="space-y-4">
        {plan.isPending ? <LoadingState label="Reading the model…" /> : plan.error ? <InlineError message={errorMessage(plan.error)} /> : plan.data ? <PlanView plan={plan.data} /> : null}
        <div className="mt-6 flex justify-end gap-2">
          <LinkButton variant="secondary" href={`/syncs/${sync.id}`}>Open sync</LinkButton>
          <Button onClick={() => run.mutate(undefined, { onSuccess: () => router.push(`/syncs/${sync.id}`) })} loading={run.isPending} disabled={!plan.data}>
            Run now
          </Button>
        </div>
      </CardBody>
    </Card>
  );
}
