// Errors of the outbound network whose message is a sentence for the person who named the target
// (a connector's configuration, a webhook or an alert channel URL): a refused address, an answer
// that is not JSON. Connectors throw the same class (lib/connectors/shared/errors.ts).

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

/** An error whose message is already a sentence meant for the person configuring the connector. */
export class ConnectorError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = "ConnectorError";
  }
}
