"use client";
// Create a sync, one step at a time (wizard/steps.ts, the step registry). One react-hook-form form,
// validated by the API's own create schema with the ids allowed to be empty until chosen
// (wizard/form.ts). Steps already done stay clickable in the progress bar. An existing sync is
// edited section by section in its settings view (sync-settings.tsx), not by replaying the wizard.
import { zodResolver } from "@hookform/resolvers/zod";
import { useRouter, useSearchParams } from "next/navigation";
import { useRef, useState } from "react";
import { useForm } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { InlineError, LoadingState } from "@/components/ui/states";
import { Steps } from "@/components/ui/steps";
import { errorMessage } from "@/lib/api-client/client";
import { useCreateSync } from "@/lib/api-client/syncs";
import type { Sync } from "@/lib/api-client/types";
import { FirstRunPlan } from "./wizard/first-run-plan";
import { createBody, initialValues, syncFormSchema, type SyncFormInput, type SyncFormValues } from "./wizard/form";
import { ProblemList } from "./wizard/problem-list";
import { serverErrorsByStep } from "./wizard/server-errors";
import type { WizardStep } from "./wizard/step";
import { stepOfField, STEPS } from "./wizard/steps";
import { unseenErrors } from "./wizard/unseen-errors";
import { useWizardData } from "./wizard/use-wizard-data";

type Problems = Partial<Record<WizardStep["id"], string[]>>;

export function SyncWizard() {
  const router = useRouter();
  const search = useSearchParams();
  const [index, setIndex] = useState(0);
  const [reached, setReached] = useState(0);
  const [problems, setProblems] = useState<Problems>({});
  const [created, setCreated] = useState<Sync | null>(null);
  const body = useRef<HTMLDivElement>(null);
  const create = useCreateSync();
  const form = useForm<SyncFormInput, unknown, SyncFormValues>({
    resolver: zodResolver(syncFormSchema),
    defaultValues: initialValues(undefined, search.get("model")),
  });
  const data = useWizardData(form);
  const step = STEPS[index];
  const last = index === STEPS.length - 1;

  const go = (to: number) => {
    setIndex(to);
    setReached((r) => Math.max(r, to));
  };

  /** Checks the current step; its problems (hidden fields' included) are shown under it. */
  async function stepIsValid(): Promise<boolean> {
    const found = step.validate?.(form) ?? [];
    if (found.length === 0 && !(await form.trigger(step.fields.map((f) => `sync.${f}` as const)))) {
      found.push(...unseenErrors(form.formState.errors, step.fields, body.current));
      setProblems((all) => ({ ...all, [step.id]: found }));
      return false;
    }
    setProblems((all) => ({ ...all, [step.id]: found }));
    return found.length === 0;
  }

  async function next() {
    if (await stepIsValid()) go(index + 1);
  }

  /** A done step of the progress bar: back at once; forward only past a valid current step. */
  async function select(to: number) {
    if (to < index || (await stepIsValid())) setIndex(to);
  }

  /** Shows the API's field errors on their steps and goes back to the first step with one. */
  function showServerErrors(err: unknown) {
    const { found, first } = serverErrorsByStep(err, form);
    setProblems(found);
    if (first >= 0) setIndex(first);
  }

  /** Creates the sync, then opens it, or (preview) shows the plan of its first run here. */
  const submitting = (preview: boolean) =>
    form.handleSubmit(
      (values) => create.mutate(createBody(values), { onSuccess: (s) => (preview ? setCreated(s) : router.push(`/syncs/${s.id}`)), onError: showServerErrors }),
      (invalid) => {
        // Send the person to the first step with a problem.
        const first = Math.min(...Object.keys(invalid.sync ?? {}).map(stepOfField).filter((i) => i >= 0));
        if (Number.isFinite(first) && first !== index) setIndex(first);
      },
    );
  const submit = submitting(false);

  if (data.models.isLoading || data.destinations.isLoading) return <LoadingState />;
  if (created) return <FirstRunPlan sync={created} />;

  const { Component } = step;
  return (
    <form onSubmit={submit} noValidate>
      <Steps steps={STEPS.map((s) => s.title)} current={index} reached={reached} onSelect={(i) => void select(i)} />
      <Card>
        <CardHeader title={step.heading(data)} description={step.description} />
        <CardBody className="space-y-4">
          <div ref={body} className="space-y-4">
            <Component form={form} data={data} editing={false} clearProblems={() => setProblems((all) => ({ ...all, [step.id]: [] }))} />
          </div>
          <ProblemList problems={problems[step.id] ?? []} />
          {last && <InlineError message={create.error ? errorMessage(create.error) : null} />}
          <div className="mt-6 flex justify-between">
            <Button variant="secondary" onClick={() => setIndex(index - 1)} disabled={index === 0}>
              Back
            </Button>
            {/* Distinct keys: reusing the Continue button's node as the submit button would let the
                click that reaches the last step submit the form. */}
            {last ? (
              <span className="flex gap-2">
                <Button key="preview" variant="secondary" onClick={() => void submitting(true)()} disabled={create.isPending}>
                  Create and preview first run
                </Button>
                <Button key="submit" type="submit" loading={create.isPending}>
                  Create sync
                </Button>
              </span>
            ) : (
              <Button key="continue" onClick={() => void next()}>
                Continue
              </Button>
            )}
          </div>
        </CardBody>
      </Card>
    </form>
  );
}
