// Secret fields are declared once, in the connection specification (`"secret": true`, any depth);
// masking, merging and redaction all derive from that so a new connector cannot forget a field.
import { SECRET_MASK } from "@/lib/net/secret-mask";
import type { ConnectorDefinition, JsonSchema, Row } from "../types";

export { SECRET_MASK };

type Path = string[];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Walks `properties` and the combinators a form may use to declare fields conditionally. */
function collectSecretPaths(schema: JsonSchema, prefix: Path, out: Path[]): void {
  const properties = schema.properties;
  if (isObject(properties)) {
    for (const [key, child] of Object.entries(properties)) {
      if (!isObject(child)) continue;
      const path = [...prefix, key];
      if (child.secret === true) out.push(path);
      else collectSecretPaths(child, path, out);
    }
  }
  for (const keyword of ["allOf", "anyOf", "oneOf"]) {
    const list = schema[keyword];
    if (Array.isArray(list)) for (const sub of list) if (isObject(sub)) collectSecretPaths(sub, prefix, out);
  }
  for (const keyword of ["then", "else"]) {
    const sub = schema[keyword];
    if (isObject(sub)) collectSecretPaths(sub, prefix, out);
  }
}

export function secretPathList(definition: ConnectorDefinition): Path[] {
  const out: Path[] = [];
  collectSecretPaths(definition.connectionSpecification, [], out);
  const seen = new Set<string>();
  return out.filter((p) => {
    const key = p.join(".");
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A secret object (e.g. headers) keeps its shape: each leaf is masked, so names stay visible. */
function maskValue(value: unknown): unknown {
  if (value === null || value === undefined || value === "") return value;
  if (Array.isArray(value)) return value.map(maskValue);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskValue(v)]));
  return SECRET_MASK;
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

function getAt(root: unknown, path: Path): unknown {
  let node = root;
  for (const key of path) {
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

function setAt(root: Record<string, unknown>, path: Path, value: unknown): void {
  let node: Record<string, unknown> = root;
  for (const key of path.slice(0, -1)) {
    if (!isObject(node[key])) return;
    node = node[key] as Record<string, unknown>;
  }
  const last = path[path.length - 1];
  if (last in node) node[last] = value;
}

export function maskConfiguration(config: Row, definition: ConnectorDefinition): Row {
  const out = clone(config);
  for (const path of secretPathList(definition)) setAt(out, path, maskValue(getAt(out, path)));
  return out;
}

/** Replaces every mask found under a secret path by the stored value at the same place. */
function mergeValue(incoming: unknown, stored: unknown): unknown {
  if (incoming === SECRET_MASK) return stored === undefined ? incoming : stored;
  if (isObject(incoming)) {
    const storedObject = isObject(stored) ? stored : {};
    return Object.fromEntries(Object.entries(incoming).map(([k, v]) => [k, mergeValue(v, storedObject[k])]));
  }
  if (Array.isArray(incoming)) {
    return incoming.map((v, i) => mergeValue(v, Array.isArray(stored) ? stored[i] : undefined));
  }
  return incoming;
}

function carriesMask(value: unknown): boolean {
  if (value === SECRET_MASK) return true;
  if (Array.isArray(value)) return value.some(carriesMask);
  return isObject(value) && Object.values(value).some(carriesMask);
}

/** A masked secret was sent back for a configuration that now sends its secrets elsewhere. */
export class SecretTargetChangedError extends Error {
  constructor(
    /** Dotted paths of the masked secrets that must be entered again. */
    readonly secretPaths: string[],
    /** Dotted paths of the target fields that changed. */
    readonly changedFields: string[],
  ) {
    super(
      `${changedFields.join(", ")} changed, so the stored ${secretPaths.join(", ")} is not sent to the new target: enter ${secretPaths.length > 1 ? "them" : "it"} again.`,
    );
    this.name = "SecretTargetChangedError";
  }
}

/** What says where a connector's secrets go: its target fields and their schema defaults. */
export type SecretTargets = Pick<ConnectorDefinition, "secretTargetFields" | "connectionSpecification">;

/**
 * The target fields whose value differs; a missing field counts as its schema default. A field
 * missing from `incoming` without a default names no target at all (the schema check refuses it).
 * Also the CLI's rule for a `${env:DATASYNC_SECRET_*}` reference (config-as-code/secret-refs.ts).
 */
export function changedTargets(incoming: Row, stored: Row, definition: SecretTargets): string[] {
  const properties = isObject(definition.connectionSpecification.properties) ? definition.connectionSpecification.properties : {};
  return (definition.secretTargetFields ?? []).filter((field) => {
    const fallback = isObject(properties[field]) ? (properties[field] as Record<string, unknown>).default : undefined;
    const value = (config: Row) => getAt(config, field.split(".")) ?? fallback;
    if (value(incoming) === undefined) return false;
    return String(value(incoming)) !== String(value(stored) ?? "");
  });
}

/**
 * The configuration an update stores: wherever `incoming` carries the mask under a secret field,
 * the stored secret, but only while the target is the same: a secret entered for one host is never
 * carried over to another (SecretTargetChangedError).
 */
export function mergeMaskedConfiguration(incoming: Row, stored: Row, definition: ConnectorDefinition): Row {
  const out = clone(incoming);
  const paths = secretPathList(definition).filter((path) => carriesMask(getAt(out, path)));
  if (paths.length === 0) return out;
  const changed = changedTargets(incoming, stored, definition);
  if (changed.length > 0) throw new SecretTargetChangedError(paths.map((p) => p.join(".")), changed);
  for (const path of paths) setAt(out, path, mergeValue(getAt(out, path), getAt(stored, path)));
  return out;
}

/** Every secret string in a configuration, for scrubbing error messages. */
export function secretValues(config: Row, definition: ConnectorDefinition): string[] {
  const values: string[] = [];
  const visit = (value: unknown): void => {
    if (typeof value === "string" && value.length >= 3) values.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (isObject(value)) Object.values(value).forEach(visit);
  };
  for (const path of secretPathList(definition)) visit(getAt(config, path));
  return values;
}

/** Where text was cut short (shared/http.ts truncate): `… (N more characters)`. */
const CUT = "… (";
/** A shorter leftover of a secret at a cut tells too little to mask (and would mask ordinary text). */
const MIN_CUT_PREFIX = 3;

/**
 * The start of `secret` left just before a cut in `text` (a log's length limit fell inside it), as
 * the mask. A scrub by whole value cannot see it: what is left no longer equals the secret.
 */
function maskCutPrefix(text: string, secret: string): string {
  let out = "";
  let from = 0;
  for (let at = text.indexOf(CUT); at !== -1; at = text.indexOf(CUT, at + CUT.length)) {
    for (let k = Math.min(secret.length - 1, at - from); k >= MIN_CUT_PREFIX; k--) {
      if (text.startsWith(secret.slice(0, k), at - k)) {
        out += `${text.slice(from, at - k)}${SECRET_MASK}`;
        from = at;
        break;
      }
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

export function redact(message: string, secrets: string[]): string {
  let out = message;
  for (const secret of secrets) out = out.split(secret).join(SECRET_MASK);
  if (out.includes(CUT)) for (const secret of secrets) out = maskCutPrefix(out, secret);
  return out;
}

/** A credential shorter than this is too common a text to mask on its own (it would mask ordinary words). */
const MIN_CREDENTIAL_PART = 8;

/**
 * What a service may echo of one header value, besides the value itself: the token after the scheme
 * (`Bearer sk_…` → `sk_…`), and for `Basic` the decoded `user:password` pair and its password. An
 * API that answers "invalid token sk_…" then never shows it (the whole-value scrub cannot see it).
 */
export function credentialTexts(value: string): string[] {
  const out = [value];
  const token = value.slice(value.lastIndexOf(" ") + 1);
  if (token !== value && token.length >= MIN_CREDENTIAL_PART) out.push(token);
  if (/^basic\s/i.test(value)) {
    const pair = Buffer.from(token, "base64").toString("utf8");
    const password = pair.slice(pair.indexOf(":") + 1);
    if (pair.includes(":") && pair.length >= MIN_CREDENTIAL_PART) out.push(pair);
    if (pair.includes(":") && password.length >= MIN_CREDENTIAL_PART) out.push(password);
  }
  return out;
}
