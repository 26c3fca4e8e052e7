// One step per operation of the OpenAPI document, each calling its operation through the generated
// client with a realistic request (and, where cheap, an error case it documents). The record type
// makes a missing operation a type error; the spec also compares the keys with the served document.
import type { Fixtures } from "./contract-fixtures";
import { ACCESS_STEPS } from "./contract-walk-access";
import { ALERT_STEPS } from "./contract-walk-alerts";
import { CONFIG_STEPS } from "./contract-walk-config";
import { DATA_STEPS } from "./contract-walk-data";
import { RUN_STEPS } from "./contract-walk-runs";
import { SEQUENCE_STEPS } from "./contract-walk-sequences";
import type { OperationId } from "./openapi-contract";
import { WEBHOOK_STEPS } from "./contract-walk-webhooks";

export type Step = (fx: Fixtures) => Promise<void>;
export type Steps = Partial<Record<OperationId, Step>>;

export const WALK: Record<OperationId, Step> = {
  ...ACCESS_STEPS,
  ...DATA_STEPS,
  ...RUN_STEPS,
  ...ALERT_STEPS,
  ...WEBHOOK_STEPS,
  ...SEQUENCE_STEPS,
  ...CONFIG_STEPS,
};
