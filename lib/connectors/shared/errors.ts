// Turning thrown values into sentences that are safe to show and to store.
import type { CheckResult, ConnectorDefinition, Row } from "../types";
import { ConnectorError, errorMessage } from "@/lib/net/errors";
import { redact, secretValues } from "./secrets";

// ConnectorError is lib/net's: the outbound guard and the HTTP client throw it too, below connectors.
export { ConnectorError, errorMessage };

/**
 * Runs a check so that it never throws: any failure becomes `{ok:false}` with `describe`'s sentence,
 * scrubbed of every secret value of the configuration.
 */
export async function safeCheck(
  definition: ConnectorDefinition,
  config: Row,
  run: () => Promise<CheckResult>,
  describe: (err: unknown) => string = errorMessage,
): Promise<CheckResult> {
  let secrets: string[] = [];
  try {
    secrets = secretValues(config ?? {}, definition);
    const result = await run();
    return { ok: result.ok, details: redact(result.details, secrets) };
  } catch (err) {
    let details: string;
    try {
      details = describe(err);
    } catch {
      details = errorMessage(err);
    }
    return { ok: false, details: redact(details, secrets) };
  }
}

/** Runs `fn`, rethrowing driver errors as ConnectorErrors carrying `describe`'s sentence and code. */
export async function withDescribedErrors<T>(fn: () => Promise<T>, describe: (err: unknown) => string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw asConnectorError(err, describe);
  }
}

export function asConnectorError(err: unknown, describe: (err: unknown) => string): ConnectorError {
  if (err instanceof ConnectorError) return err;
  const code = (err as { code?: unknown }).code;
  return new ConnectorError(describe(err), typeof code === "string" ? code : undefined);
}
