"use client";
import { zodResolver } from "@hookform/resolvers/zod";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { Card, CardBody, PageHeader } from "@/components/ui/card";
import { Field, Input, Textarea } from "@/components/ui/field";
import { InlineError } from "@/components/ui/states";
import { Steps } from "@/components/ui/steps";
import { errorMessage, fieldErrors } from "@/lib/api-client/client";
import { useCheckConnection, useCreateConnector } from "@/lib/api-client/connectors";
import type { ConnectorDefinition, ConnectorKind } from "@/lib/api-client/types";
import { createConnectorSchema } from "@/lib/validation/connectors";
import { CheckResultPanel } from "./check-result";
import { ConnectorIcon } from "./connector-icon";
import { kindLabel, kindPath } from "./connectors-list";
import { DefinitionPicker } from "./definition-picker";
import { coerceValue, JsonSchemaForm, validateValue, withDefaults } from "./json-schema-form";

const STEPS = ["Choose a connector", "Configure", "Test", "Name and save"];

export function ConnectorWizard({ type }: { type: ConnectorKind }) {
  const router = useRouter();
  const [step, setStep] = useState(0);
  const [definition, setDefinition] = useState<ConnectorDefinition | null>(null);
  const [config, setConfig] = useState<Record<string, unknown>>({});
  const [configErrors, setConfigErrors] = useState<Record<string, string>>({});
  const check = useCheckConnection();
  const create = useCreateConnector();
  const label = kindLabel(type).toLowerCase();

  const schema = definition?.connector_spec.connection_specification;

  const form = useForm({
    resolver: zodResolver(createConnectorSchema),
    defaultValues: { connector: { name: "", description: "", connector_type: type, connector_name: "", configuration: {} } },
  });

  function pick(d: ConnectorDefinition) {
    setDefinition(d);
    form.setValue("connector.connector_name", d.name);
    setConfig(withDefaults(d.connector_spec.connection_specification));
    setConfigErrors({});
    check.reset();
    setStep(1);
  }

  function runTest() {
    if (!definition || !schema) return;
    const errors = validateValue(schema, config);
    setConfigErrors(errors);
    if (Object.keys(errors).length > 0) return;
    setStep(2);
    check.mutate(
      { name: definition.name, type, connection_spec: coerceValue(schema, config) },
      { onError: (err) => setConfigErrors(fieldErrors(err, "connection_spec")) },
    );
  }

  const save = form.handleSubmit((values) => {
    if (!definition || !schema) return;
    const connector = {
      ...values.connector,
      connector_type: type,
      connector_name: definition.name,
      configuration: coerceValue(schema, config),
    };
    create.mutate(connector, {
      onSuccess: (c) => router.push(`${kindPath(type)}/${c.id}`),
      onError: (err) => {
        const errors = fieldErrors(err, "connector");
        const cfg = Object.fromEntries(
          Object.entries(errors)
            .filter(([k]) => k.startsWith("configuration."))
            .map(([k, v]) => [k.slice("configuration.".length), v]),
        );
        if (Object.keys(cfg).length > 0) {
          setConfigErrors(cfg);
          setStep(1);
        }
        if (errors.name) form.setError("connector.name", { message: errors.name });
      },
    });
  }, (invalid) => {
    // Only the name and description are on this step; anything else is a bug worth showing.
    if (!invalid.connector?.name && !invalid.connector?.description) form.setError("root", { message: "The form is incomplete; go back and check the configuration." });
  });

  return (
    <>
      <PageHeader title={`New ${label}`} description={`Connect a ${label} in four steps.`} />
      <Steps steps={STEPS} current={step} />
      {step === 0 && <DefinitionPicker type={type} onPick={pick} />}

      {step === 1 && definition && schema && (
        <Card>
          <CardBody>
            <div className="mb-5 flex items-center gap-3">
              <ConnectorIcon name={definition.name} icon={definition.icon} />
              <div>
                <h2 className="text-base font-semibold">{definition.title}</h2>
                <p className="text-sm text-slate-500">Enter the connection details. Fields marked * are required.</p>
              </div>
            </div>
            <form
              noValidate
              onSubmit={(e) => {
                e.preventDefault();
                runTest();
              }}
            >
              <JsonSchemaForm schema={schema} value={config} onChange={setConfig} errors={configErrors} />
              {Object.keys(configErrors).length > 0 && (
                <p role="alert" className="mt-4 text-sm font-medium text-red-600">
                  Fix the highlighted fields first.
                </p>
              )}
              <div className="mt-6 flex justify-between">
                <Button variant="secondary" onClick={() => setStep(0)}>
                  Back
                </Button>
                <Button type="submit">Test connection</Button>
              </div>
            </form>
          </CardBody>
        </Card>
      )}

      {step === 2 && definition && (
        <Card>
          <CardBody className="space-y-5">
            <h2 className="text-base font-semibold">Test the connection to {definition.title}</h2>
            <CheckResultPanel
              pending={check.isPending}
              result={check.data}
              error={check.error && !Object.keys(configErrors).length ? errorMessage(check.error) : null}
            />
            <div className="flex justify-between">
              <Button variant="secondary" onClick={() => setStep(1)}>
                Back to configuration
              </Button>
              <div className="flex gap-2">
                {!check.isPending && <Button variant="secondary" onClick={runTest}>Test again</Button>}
                <Button onClick={() => setStep(3)} disabled={check.data?.result !== "success"}>
                  Continue
                </Button>
              </div>
            </div>
          </CardBody>
        </Card>
      )}

      {step === 3 && definition && (
        <Card>
          <CardBody>
            <form onSubmit={save} noValidate className="max-w-lg space-y-4">
              <Field label="Name" hint={`Shown wherever this ${label} is used. No two ${label}s of the workspace share a name (ignoring case).`} error={form.formState.errors.connector?.name && `Name ${form.formState.errors.connector.name.message}`} required>
                {(p) => <Input {...p} autoFocus placeholder={`My ${definition.title} ${label}`} {...form.register("connector.name")} />}
              </Field>
              <Field label="Description" error={form.formState.errors.connector?.description?.message}>
                {(p) => <Textarea {...p} rows={2} {...form.register("connector.description")} />}
              </Field>
              <InlineError message={create.error ? errorMessage(create.error) : (form.formState.errors.root?.message ?? null)} />
              <div className="flex justify-between pt-2">
                <Button variant="secondary" onClick={() => setStep(2)}>
                  Back
                </Button>
                <Button type="submit" loading={create.isPending}>
                  Save {label}
                </Button>
              </div>
            </form>
          </CardBody>
        </Card>
      )}
    </>
  );
}
