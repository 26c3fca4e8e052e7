// How a sync's configuration and guard are checked and stored, shared by a save (syncs.ts) and a
// plan with unsaved changes (sync-proposal.ts), so a plan never accepts what a save would refuse.
import { compileMapping, MappingConfigurationError } from "@/lib/sync-rules/mapping";
import type { FieldError } from "@/lib/errors";
import type { GuardInput } from "@/lib/validation/syncs";

/** The mapping's own errors, on sync.configuration (empty when it compiles). */
export function configurationErrors(configuration: unknown): FieldError[] {
  try {
    compileMapping(configuration);
    return [];
  } catch (err) {
    if (err instanceof MappingConfigurationError) return [{ path: "sync.configuration", message: err.message }];
    throw err;
  }
}

/** syncs.guard as sent, as stored: null (or {}) back to the defaults (null); only the limits sent are kept. */
export function storedGuard(guard: GuardInput | null): Record<string, number | boolean | null> | null {
  const set = Object.fromEntries(Object.entries(guard ?? {}).filter(([, v]) => v !== undefined));
  return Object.keys(set).length === 0 ? null : set;
}
