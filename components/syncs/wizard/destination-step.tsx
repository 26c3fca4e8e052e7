"use client";
import Link from "next/link";
import { ConnectorIcon } from "@/components/connectors/connector-icon";
import { cn } from "@/components/ui/cn";
import type { StepProps } from "./step";

export function DestinationStep({ form, data, editing }: StepProps) {
  const { destinations, values } = data;
  if (destinations.data?.length === 0) {
    return (
      <p className="text-sm text-slate-600">
        No destinations yet. <Link className="font-medium text-indigo-700 hover:underline" href="/destinations/new">Create a destination</Link> first.
      </p>
    );
  }
  return (
    <>
      <div role="radiogroup" aria-label="Destination" data-field="sync.destination_id" className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-3">
        {destinations.data?.map((d) => {
          const selected = values.destination_id === Number(d.id);
          return (
            <button
              key={d.id}
              type="button"
              role="radio"
              aria-checked={selected}
              disabled={editing && !selected}
              onClick={() => {
                form.setValue("sync.destination_id", Number(d.id), { shouldValidate: true });
                form.setValue("sync.stream_name", "");
              }}
              className={cn(
                "flex items-center gap-3 rounded-lg border p-4 text-left focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 disabled:opacity-50",
                selected ? "border-indigo-600 bg-indigo-50 ring-1 ring-indigo-600" : "border-slate-200 bg-white hover:border-indigo-300",
              )}
            >
              <ConnectorIcon name={d.attributes.connector_name} icon={d.attributes.icon} />
              <span>
                <span className="block font-medium">{d.attributes.name}</span>
                <span className="block text-xs text-slate-500">{d.attributes.connector_name}</span>
              </span>
            </button>
          );
        })}
      </div>
      {form.formState.errors.sync?.destination_id && <p className="text-sm font-medium text-red-600">Choose a destination.</p>}
    </>
  );
}
