// The words of a sequence run's progress (lib/engine/sequences/progress.ts derives them). Browser-safe:
// the API's schemas and the OpenAPI document list them without loading the engine.

/** What a step shows. */
export const STEP_STATES = ["waiting", "running", "needs_approval", "success", "failed", "skipped", "not_run"] as const;
export type StepState = (typeof STEP_STATES)[number];

/** What a sequence run shows; success, failed and needs_approval end a long-poll. */
export const SEQUENCE_STATUSES = ["running", "needs_approval", "success", "failed"] as const;
export type SequenceStatus = (typeof SEQUENCE_STATUSES)[number];
export const SETTLED_SEQUENCE_STATUSES: ReadonlySet<SequenceStatus> = new Set(["success", "failed", "needs_approval"]);
