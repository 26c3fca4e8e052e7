// The one place that knows every connector. Definitions are keyed by (type, name): a source and a
// destination may share a name (Postgresql) and are still two connectors.
import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type {
  ConnectorDefinition,
  ConnectorKind,
  DestinationConnector,
  Row,
  SourceConnector,
} from "./types";
import { SPEC_KEYWORDS } from "./shared/spec";
import { matchesCategoryFilter, type ConnectorGroup } from "./categories";
import {
  maskConfiguration,
  mergeMaskedConfiguration,
  secretPathList,
  SECRET_MASK,
  SecretTargetChangedError,
} from "./shared/secrets";
import { destinationEntries, sourceEntries, type ConnectorEntry } from "./catalogue";

export { SECRET_MASK, SecretTargetChangedError };

type Entry = ConnectorEntry<SourceConnector> | ConnectorEntry<DestinationConnector>;

const byKey = new Map<string, Entry>();
for (const entry of [...sourceEntries, ...destinationEntries]) {
  const { connectorType, name, aliases = [] } = entry.definition;
  for (const key of [name, ...aliases]) byKey.set(`${connectorType}:${key.toLowerCase()}`, entry);
}

export class UnknownConnectorError extends Error {
  constructor(
    readonly connectorName: string,
    readonly connectorType?: ConnectorKind,
  ) {
    const known = [...byKey.values()]
      .filter((c) => !connectorType || c.definition.connectorType === connectorType)
      .map((c) => c.definition.name);
    super(
      `Unknown ${connectorType ?? "connector"} "${connectorName}". Known ${connectorType ?? "connector"}s: ${[...new Set(known)].join(", ")}.`,
    );
    this.name = "UnknownConnectorError";
  }
}

/**
 * All definitions, sources first, optionally filtered by type and by category: a group (`data`,
 * `ai_ml`) or one category's name (`Data Warehouse`), in any case.
 */
export function listDefinitions(filter: { type?: ConnectorKind; category?: ConnectorGroup | string } = {}): ConnectorDefinition[] {
  return [...sourceEntries, ...destinationEntries]
    .map((c) => c.definition)
    .filter(
      (d) =>
        (!filter.type || d.connectorType === filter.type) &&
        (!filter.category || matchesCategoryFilter(d.category, filter.category)),
    );
}

/**
 * Case-insensitive lookup. Without `type`, a name shared by a source and a destination resolves to
 * the source (their configuration schemas are the same for every such pair).
 */
export function getDefinition(name: string, type?: ConnectorKind): ConnectorDefinition | undefined {
  const lower = name.toLowerCase();
  if (type) return byKey.get(`${type}:${lower}`)?.definition;
  return (byKey.get(`source:${lower}`) ?? byKey.get(`destination:${lower}`))?.definition;
}

/** The source's implementation, imported on first use (lib/connectors/catalogue.ts). */
export function loadSource(name: string): Promise<SourceConnector> {
  const entry = byKey.get(`source:${name.toLowerCase()}`);
  if (!entry) return Promise.reject(new UnknownConnectorError(name, "source"));
  return (entry as ConnectorEntry<SourceConnector>).load();
}

/** The destination's implementation, imported on first use (lib/connectors/catalogue.ts). */
export function loadDestination(name: string): Promise<DestinationConnector> {
  const entry = byKey.get(`destination:${name.toLowerCase()}`);
  if (!entry) return Promise.reject(new UnknownConnectorError(name, "destination"));
  return (entry as ConnectorEntry<DestinationConnector>).load();
}

/** Dotted paths of the fields marked `"secret": true`, e.g. `credentials.password`. */
export function secretPaths(definition: ConnectorDefinition): string[] {
  return secretPathList(definition).map((p) => p.join("."));
}

/** A copy with every secret value replaced by `*************` (secret objects keep their keys). */
export function maskSecrets(config: Row, definition: ConnectorDefinition): Row {
  return maskConfiguration(config, definition);
}

/**
 * On update: wherever `incoming` carries the mask under a secret field, keep the stored value, as
 * long as the target (host, URL…) is the same; else throws SecretTargetChangedError.
 */
export function mergeMaskedSecrets(incoming: Row, stored: Row, definition: ConnectorDefinition): Row {
  return mergeMaskedConfiguration(incoming, stored, definition);
}

export interface ConfigurationError {
  /** Dotted path of the field, e.g. `credentials.username`; empty for the object itself. */
  path: string;
  message: string;
}

let ajv: Ajv | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

function validatorFor(definition: ConnectorDefinition): ValidateFunction {
  let validate = compiled.get(definition.connectionSpecification);
  if (!validate) {
    if (!ajv) {
      // strictRequired off: conditional `then: {required: [...]}` names fields declared at the top.
      // Draft-07 (ajv's default class), the draft the specifications declare (shared/spec.ts).
      ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
      addFormats(ajv);
      for (const keyword of SPEC_KEYWORDS)
        ajv.addKeyword({ keyword, schemaType: ["boolean", "number", "string"] });
    }
    validate = ajv.compile(definition.connectionSpecification);
    compiled.set(definition.connectionSpecification, validate);
  }
  return validate;
}

function toPath(instancePath: string): string {
  return instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
}

function toConfigurationError(e: ErrorObject): ConfigurationError {
  const base = toPath(e.instancePath);
  const join = (child: string) => (base ? `${base}.${child}` : child);
  switch (e.keyword) {
    case "required": {
      const field = (e.params as { missingProperty: string }).missingProperty;
      return { path: join(field), message: `${field} is required` };
    }
    case "additionalProperties": {
      const field = (e.params as { additionalProperty: string }).additionalProperty;
      return { path: join(field), message: `${field} is not a known setting` };
    }
    case "enum":
      return {
        path: base,
        message: `must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(", ")}`,
      };
    default:
      return { path: base, message: e.message ?? "is invalid" };
  }
}

/**
 * Validates a configuration against its definition's JSON Schema; [] when valid. Each error names
 * the field, so the API can return `errors: [{path: "configuration.<path>", message}]`.
 */
export function validateConfiguration(
  definition: ConnectorDefinition,
  config: unknown,
): ConfigurationError[] {
  const validate = validatorFor(definition);
  if (validate(config)) return definition.configurationProblems?.(config as Row) ?? [];
  const errors = (validate.errors ?? [])
    // `if`/`then` report a summary error besides the real one; the real one is enough.
    .filter((e) => e.keyword !== "if")
    .map(toConfigurationError);
  const seen = new Set<string>();
  return errors.filter((e) => {
    const id = `${e.path}\u0000${e.message}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
