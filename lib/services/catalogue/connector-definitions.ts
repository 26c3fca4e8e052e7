// Connector definitions come from the registry (code, not the database); this module adds the
// API's lookups and the connection check of a configuration (stored or not yet stored).
import "server-only";
import { adapterConfig } from "@/lib/connectors/adapter-config";
import { EnvironmentPlaceholderError, envPlaceholderProblems, envRedactor } from "@/lib/connectors/env-placeholders";
import { getDefinition, listDefinitions, loadDestination, loadSource, validateConfiguration } from "@/lib/connectors/registry";
import type { ConnectorDefinition, ConnectorKind, Row } from "@/lib/connectors/types";
import { NotFound, ValidationFailed } from "@/lib/errors";
import { ConnectorError } from "@/lib/connectors/shared/errors";
import { withApiDeadline } from "./connector-deadline";
import type { CheckConnectionInput, ListConnectorDefinitionsQuery } from "@/lib/validation/connector-definitions";

export function listConnectorDefinitions(filter: ListConnectorDefinitionsQuery): ConnectorDefinition[] {
  return listDefinitions(filter);
}

function knownNames(type?: ConnectorKind): string {
  return [...new Set(listDefinitions(type ? { type } : {}).map((d) => d.name))].join(", ");
}

export function findConnectorDefinition(name: string, type?: ConnectorKind): ConnectorDefinition {
  const definition = getDefinition(name, type);
  if (!definition) {
    throw new NotFound(`Connector definition "${name}"${type ? ` of type ${type}` : ""} was not found. Known: ${knownNames(type)}.`);
  }
  return definition;
}

/** A definition named in a request body: unknown is a 422 on that field, not a 404 of the URL. */
export function requireDefinition(name: string, type: ConnectorKind | undefined, path: string): ConnectorDefinition {
  const definition = getDefinition(name, type);
  if (!definition) {
    const message = `"${name}" is not a known ${type ?? "connector"}; known: ${knownNames(type)}`;
    throw ValidationFailed.field(path, message);
  }
  return definition;
}

/**
 * ajv errors of a configuration, and `ENV['X']` placeholders the server does not share, as field
 * errors under `prefix` (e.g. connector.configuration).
 */
export function configurationErrors(definition: ConnectorDefinition, config: unknown, prefix: string) {
  return [...validateConfiguration(definition, config), ...envPlaceholderProblems(config)].map((e) => ({
    path: e.path ? `${prefix}.${e.path}` : prefix,
    message: e.message,
  }));
}

export interface CheckConnectionResult {
  /** `success` or `failure`: the reference's published enum for this member. */
  result: "success" | "failure";
  details: string;
}

/**
 * Tries a configuration. Every outcome a person can fix in the form, including a configuration that
 * breaks the schema, is `result: "failure"` with a sentence naming the fields (HTTP 200), so the
 * console shows it next to the form; only an unknown connector name is a 422.
 */
export async function checkConnection(input: CheckConnectionInput, workspaceId: number): Promise<CheckConnectionResult> {
  return checkConfiguration(requireDefinition(input.name, input.type, "name"), input.connection_spec, workspaceId);
}

/** The check of `configuration` against its definition: schema, ENV['X'] placeholders, then the connector's own check. */
export async function checkConfiguration(definition: ConnectorDefinition, configuration: Row, workspaceId: number): Promise<CheckConnectionResult> {
  const invalid = validateConfiguration(definition, configuration);
  if (invalid.length > 0) {
    const list = invalid.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join("; ");
    return { result: "failure", details: `The configuration is invalid: ${list}.` };
  }
  let config: Row;
  try {
    config = adapterConfig(definition, configuration, workspaceId);
  } catch (err) {
    if (err instanceof EnvironmentPlaceholderError) return { result: "failure", details: err.message };
    throw err;
  }
  const connector = await (definition.connectorType === "source" ? loadSource(definition.name) : loadDestination(definition.name));
  // check() never throws: connectors turn every failure into {ok: false, details} without secrets;
  // what a placeholder resolved to is a secret too, wherever it was used (a host, a header).
  const outcome = await withApiDeadline("The connection check", (signal) => connector.check(config, signal)).catch((err: unknown) => {
    if (err instanceof ConnectorError && err.code === "TIMEOUT") return { ok: false, details: err.message };
    throw err;
  });
  return { result: outcome.ok ? "success" : "failure", details: envRedactor(configuration)(outcome.details) };
}
