"use client";
// Create (or edit) a sync, one step at a time (wizard/steps.ts). One react-hook-form form, validated by
// the API's own create schema with the ids allowed to be empty until chosen (wizard/form.ts).
import { zodResolver } from "@hookform/resolvers/zod";
import { useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { InlineError, LoadingState } from "@/components/ui/states";
import { Steps } from "@/components/ui/steps";
import { errorMessage, fieldErrors } from "@/lib/api-client/client";
import { useCreateSync, useUpdateSync } from "@/lib/api-client/syncs";
import type { Sync } from "@/lib/api-client/types";
import { createBody, initialValues, syncFormSchema, updateBody, type SyncFormInput, type SyncFormValues } from "./wizard/form";
import type { WizardStep } from "./wizard/step";
import { EDIT_START, stepOfField, STEPS } from "./wizard/steps";
import { useWizardData } from "./wizard/use-wizard-data";

type Problems = Partial<Record<WizardStep["id"], string[]>>;

export function SyncWizard({ sync }: { sync?: Sync }) {
  const router = useRouter();
  const search = useSearchParams();
  const editing = Boolean(sync);
  const [index, setIndex] = useState(editing ? EDIT_START : 0);
  const [problems, setProblems] = useState<Problems>({});
  const create = useCreateSync();
  const update = useUpdateSync(sync?.id ?? "");
  const mutation = editing ? update : create;
  const form = useForm<SyncFormInput, unknown, SyncFormValues>({
    resolver: zodResolver(syncFormSchema),
    defaultValues: initialValues(sync, search.get("model")),
  });
  const data = useWizardData(form);
  const step = STEPS[index];
  const last = index === STEPS.length - 1;

  async function next() {
    const found = step.validate?.(form) ?? [];
    setProblems((all) => ({ ...all, [step.id]: found }));
    if (found.length) return;
    if (await form.trigger(step.fields.map((f) => `sync.${f}` as const))) setIndex(index + 1);
  }

  /** Shows the API's field errors on their steps and goes back to the first step with one. */
  function showServerErrors(err: unknown) {
    const found: Problems = {};
    let first = -1;
    for (const [path, message] of Object.entries(fieldErrors(err, "sync"))) {
      const at = stepOfField(path);
      if (at < 0) continue;
      const field = STEPS[at].fields.find((f) => f === path);
      if (field) form.setError(`sync.${field}`, { message });
      else found[STEPS[at].id] = [...(found[STEPS[at].id] ?? []), `${path}: ${message}`];
      first = first < 0 ? at : Math.min(first, at);
    }
    setProblems(found);
    if (first >= 0) setIndex(first);
  }

  const submit = form.handleSubmit(
    (values) => {
      if (sync) update.mutate(updateBody(values), { onSuccess: () => router.push(`/syncs/${sync.id}`), onError: showServerErrors });
      else create.mutate(createBody(values), { onSuccess: (s) => router.push(`/syncs/${s.id}`), onError: showServerErrors });
    },
    (invalid) => {
      // Send the person to the first step with a problem.
      const first = Math.min(...Object.keys(invalid.sync ?? {}).map(stepOfField).filter((i) => i >= 0));
      if (Number.isFinite(first) && first !== index) setIndex(first);
    },
  );

  if (data.models.isLoading || data.destinations.isLoading) return <LoadingState />;

  const { Component } = step;
  return (
    <form onSubmit={submit} noValidate>
      <Steps steps={STEPS.map((s) => s.title)} current={index} />
      <Card>
        <CardHeader title={step.heading(data)} description={step.description} />
        <CardBody className="space-y-4">
          <Component
            form={form}
            data={data}
            editing={editing}
            problems={problems[step.id] ?? []}
            clearProblems={() => setProblems((all) => ({ ...all, [step.id]: [] }))}
          />
          {last && <InlineError message={mutation.error ? errorMessage(mutation.error) : null} />}
          <div className="mt-6 flex justify-between">
            <Button variant="secondary" onClick={() => setIndex(index - 1)} disabled={index === 0}>
              Back
            </Button>
            {/* Distinct keys: reusing the Continue button's node as the submit button would let the
                click that reaches the last step submit the form. */}
            {last ? (
              <Button key="submit" type="submit" loading={mutation.isPending}>
                {editing ? "Save sync" : "Create sync"}
              </Button>
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
