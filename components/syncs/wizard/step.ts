// A step of the sync wizard: what it shows, which fields it owns (validated on Continue, and where a
// server error on one of them sends the person back to), and any check beyond the schema.
import type { UseFormReturn } from "react-hook-form";
import type { SyncFormField, SyncFormInput, SyncFormValues } from "./form";
import type { WizardData } from "./use-wizard-data";

export type SyncForm = UseFormReturn<SyncFormInput, unknown, SyncFormValues>;

export interface StepProps {
  form: SyncForm;
  data: WizardData;
  /** Editing an existing sync: model, destination and cursor are fixed. */
  editing: boolean;
  /** Clears the problems shown under the step once the person changes what caused them. */
  clearProblems: () => void;
}

export interface WizardStep {
  id: "model" | "destination" | "stream" | "mapping" | "mode" | "schedule" | "name" | "guard";
  /** The label in the progress bar. */
  title: string;
  heading: (data: WizardData) => string;
  description?: string;
  fields: SyncFormField[];
  /** Problems that block Continue beyond the schema (each a sentence); none when it may go on. */
  validate?: (form: SyncForm) => string[];
  Component: (props: StepProps) => React.ReactNode;
}
