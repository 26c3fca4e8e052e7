"use client";
// A sync's settings: one card per section (name, mapping, mode, schedule), each showing what is
// saved and editable on its own. Saving a section sends only its fields; the others stay as saved.
import { zodResolver } from "@hookform/resolvers/zod";
import Link from "next/link";
import { useRef, useState } from "react";
import { useForm } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader, PageHeader } from "@/components/ui/card";
import { ErrorState, LoadingState } from "@/components/ui/states";
import { errorMessage, fieldErrors } from "@/lib/api-client/client";
import { useCan } from "@/lib/api-client/settings";
import { useSync, useUpdateSync } from "@/lib/api-client/syncs";
import type { Sync } from "@/lib/api-client/types";
import type { ProposedChanges } from "@/lib/api-client/plans";
import type { UpdateSyncInput } from "@/lib/validation/syncs";
import { SavePlanDialog } from "./save-plan-dialog";
import { syncName } from "./syncs-list";
import { initialValues, syncFormSchema, type SyncFormInput, type SyncFormValues } from "./wizard/form";
import { ProblemList } from "./wizard/problem-list";
import { SECTIONS, type SettingsSection } from "./wizard/sections";
import { unseenErrors } from "./wizard/unseen-errors";
import { useWizardData } from "./wizard/use-wizard-data";

export function SyncSettings({ id }: { id: string }) {
  const sync = useSync(id);
  if (sync.isLoading) return <LoadingState />;
  if (sync.error || !sync.data) return <ErrorState error={sync.error ?? "Not found"} onRetry={() => void sync.refetch()} />;
  return (
    <>
      <PageHeader
        breadcrumb={<Link href={`/syncs/${id}`} className="hover:underline">{syncName(sync.data)}</Link>}
        title="Sync settings"
        description="Each section is edited and saved on its own. Model, destination and cursor are fixed once a sync exists."
      />
      <SettingsSections sync={sync.data} />
    </>
  );
}

/** Sections whose save changes what the next run sends: their plan is shown before they are saved. */
const PLANNED_SECTIONS: ReadonlySet<string> = new Set(["mapping", "mode"]);

const changed = (a: unknown, b: unknown) => JSON.stringify(a) !== JSON.stringify(b);

/** The fields of an update the plan can take (what decides what a run sends). */
function proposal(body: UpdateSyncInput): ProposedChanges {
  const { configuration, sync_mode, write_mode, detect_deletes } = body;
  return { configuration, sync_mode, write_mode, detect_deletes };
}

function SettingsSections({ sync }: { sync: Sync }) {
  const canUpdate = useCan("sync", "update");
  const [open, setOpen] = useState<SettingsSection["step"]["id"] | null>(null);
  const [saved, setSaved] = useState(sync);
  const [problems, setProblems] = useState<string[]>([]);
  /** A section waiting for the person to confirm its plan. */
  const [pending, setPending] = useState<{ section: SettingsSection; input: UpdateSyncInput; changes: ProposedChanges } | null>(null);
  const body = useRef<HTMLDivElement>(null);
  const update = useUpdateSync(sync.id);
  const form = useForm<SyncFormInput, unknown, SyncFormValues>({
    resolver: zodResolver(syncFormSchema),
    defaultValues: initialValues(sync, null),
  });
  const data = useWizardData(form);

  function close(next: Sync) {
    form.reset(initialValues(next, null));
    setProblems([]);
    setOpen(null);
  }

  async function save(section: SettingsSection) {
    const { step } = section;
    const found = step.validate?.(form) ?? [];
    if (found.length === 0 && !(await form.trigger(step.fields.map((f) => `sync.${f}` as const)))) {
      found.push(...unseenErrors(form.formState.errors, step.fields, body.current));
      setProblems(found);
      return;
    }
    setProblems(found);
    if (found.length) return;
    const input = section.body(form.getValues("sync"));
    // A new mapping or mode changes what every run sends (each row's fingerprint): show the plan first.
    if (PLANNED_SECTIONS.has(section.step.id) && changed(input, section.body(initialValues(saved, null).sync))) {
      setPending({ section, input, changes: proposal(input) });
      return;
    }
    send(section, input);
  }

  function send(section: SettingsSection, input: UpdateSyncInput) {
    const { step } = section;
    update.mutate(input, {
      onSuccess: (next) => {
        setPending(null);
        setSaved(next);
        close(next);
      },
      onError: (err) => {
        setPending(null);
        // The API's field errors: on the section's control when it has one, else as a sentence here.
        const fields = Object.entries(fieldErrors(err, "sync"));
        if (fields.length === 0) return setProblems([errorMessage(err)]);
        const sentences: string[] = [];
        for (const [path, message] of fields) {
          const field = step.fields.find((f) => f === path);
          if (field && body.current?.querySelector(`[name="sync.${field}"]`)) form.setError(`sync.${field}`, { message });
          else sentences.push(`${path}: ${message}`);
        }
        setProblems(sentences);
      },
    });
  }

  return (
    <div className="space-y-4">
      <SavePlanDialog
        syncId={sync.id}
        changes={pending?.changes ?? null}
        what={pending?.section.title.toLowerCase() ?? ""}
        saving={update.isPending}
        onClose={() => setPending(null)}
        onSave={() => pending && send(pending.section, pending.input)}
      />
      {SECTIONS.map((section) => {
        const editing = open === section.step.id;
        const { Component } = section.step;
        return (
          <Card key={section.step.id}>
            <section aria-label={section.title}>
              <CardHeader
                title={section.title}
                description={editing ? section.step.heading(data) : section.summary(saved)}
                actions={
                  canUpdate && !editing ? (
                    <Button
                      variant="secondary"
                      size="sm"
                      disabled={open !== null}
                      title={open !== null ? "Save or cancel the section being edited first" : undefined}
                      aria-label={`Edit ${section.title.toLowerCase()}`}
                      onClick={() => setOpen(section.step.id)}
                    >
                      Edit
                    </Button>
                  ) : null
                }
              />
              {editing && (
                <CardBody className="space-y-4">
                  <div ref={body} className="space-y-4">
                    <Component form={form} data={data} editing clearProblems={() => setProblems([])} />
                  </div>
                  <ProblemList problems={problems} />
                  <div className="flex justify-end gap-2">
                    <Button variant="secondary" onClick={() => close(saved)}>
                      Cancel
                    </Button>
                    <Button loading={update.isPending} onClick={() => void save(section)}>
                      Save {section.title.toLowerCase()}
                    </Button>
                  </div>
                </CardBody>
              )}
            </section>
          </Card>
        );
      })}
    </div>
  );
}
