// `${env:NAME}` references in connector configurations (docs/config-as-code.md). Export writes one
// wherever a secret was; the client (the CLI) resolves them from the operator's environment
// through an allow-list and sends the values in the request's `secrets`. The server resolves them
// only from that map: it never reads its own environment for them, so a tenant writing
// ${env:DATABASE_URL} gets a 422, not the server's database password.
import { changedTargets, type SecretTargets } from "../connectors/shared/secrets";

/** A `${env:NAME}` reference: the whole string, resolved by the client (never from the server's environment). */
export const SECRET_REF_PATTERN = /^\$\{env:([A-Za-z_][A-Za-z0-9_]{0,127})\}$/;

/** Names handed out by export, and allowed by the CLI without --allow-env. */
export const SECRET_ENV_PREFIX = "DATASYNC_SECRET_";

type Json = unknown;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The variable export names for a secret: DATASYNC_SECRET_<SLUG>_<PATH>, upper case, `_` between words. */
export function secretEnvName(slug: string, path: readonly string[]): string {
  return `${SECRET_ENV_PREFIX}${[slug, ...path].join("_")}`.toUpperCase().replace(/[^A-Z0-9_]+/g, "_").slice(0, 128);
}

/** The referenced name, when `value` is a whole `${env:NAME}` string. */
export function secretRefName(value: unknown): string | undefined {
  return typeof value === "string" ? SECRET_REF_PATTERN.exec(value)?.[1] : undefined;
}

/** A copy where every string leaf equal to `mask` (a masked secret) is a reference named by its path. */
export function maskedToRefs(config: Json, mask: string, slug: string, path: string[] = []): Json {
  if (config === mask) return `\${env:${secretEnvName(slug, path)}}`;
  if (Array.isArray(config)) return config.map((v, i) => maskedToRefs(v, mask, slug, [...path, String(i)]));
  if (isObject(config)) return Object.fromEntries(Object.entries(config).map(([k, v]) => [k, maskedToRefs(v, mask, slug, [...path, k])]));
  return config;
}

/** maskedToRefs of a configuration object, which stays an object. */
export const configurationToRefs = (config: Record<string, unknown>, mask: string, slug: string): Record<string, unknown> =>
  Object.fromEntries(Object.entries(config).map(([k, v]) => [k, maskedToRefs(v, mask, slug, [k])]));

/** Every reference in a value: its name and dotted path. */
export function secretRefs(value: Json, path: string[] = [], out: { name: string; path: string }[] = []): { name: string; path: string }[] {
  const name = secretRefName(value);
  if (name !== undefined) out.push({ name, path: path.join(".") });
  else if (Array.isArray(value)) value.forEach((v, i) => secretRefs(v, [...path, String(i)], out));
  else if (isObject(value)) for (const [k, v] of Object.entries(value)) secretRefs(v, [...path, k], out);
  return out;
}

/**
 * A copy with each reference replaced by `secrets[NAME]`; a reference without a value becomes
 * `unresolved` (the mask, which keeps the stored secret of an existing connector) and is listed.
 */
export function resolveSecretRefs(
  value: Json,
  secrets: Readonly<Record<string, string>>,
  unresolved: string,
  path: string[] = [],
  missing: { name: string; path: string }[] = [],
): { value: Json; missing: { name: string; path: string }[] } {
  const name = secretRefName(value);
  let out: Json = value;
  if (name !== undefined) {
    if (Object.hasOwn(secrets, name)) out = secrets[name];
    else {
      missing.push({ name, path: path.join(".") });
      out = unresolved;
    }
  } else if (Array.isArray(value)) out = value.map((v, i) => resolveSecretRefs(v, secrets, unresolved, [...path, String(i)], missing).value);
  else if (isObject(value)) {
    out = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveSecretRefs(v, secrets, unresolved, [...path, k], missing).value]));
  }
  return { value: out, missing };
}

/** Where a reference stands in a document: the entry (its kind and slug) and the field inside it. */
export interface RefPlace {
  kind: "connectors" | "alert_channels";
  slug: string;
  /** The entry's connector_type and connector_name (connectors only): a PostgreSQL source's password is not an HTTP header's. */
  connectorType?: string;
  type?: string;
  /** The field, as the file writes it: `configuration.credentials.password`, `url`. */
  field: string;
}

/** How an error names a place: `connector "warehouse" at configuration.credentials.password`. */
export function describePlace(place: RefPlace): string {
  return `${place.kind === "connectors" ? "connector" : "alert channel"} "${place.slug}" at ${place.field}`;
}

const samePlace = (a: RefPlace, b: RefPlace) =>
  a.kind === b.kind && a.slug === b.slug && a.field === b.field && (a.type ?? "") === (b.type ?? "") && (a.connectorType ?? "") === (b.connectorType ?? "");

/** A reference, where it stands, and (connectors) the configuration around it, which says where the secret goes. */
export interface DocumentRef {
  name: string;
  place: RefPlace;
  configuration?: Record<string, unknown>;
}

/** Every reference where one may stand (connector configurations and alert channel URLs), with its place. */
export function documentRefs(document: Json): DocumentRef[] {
  const out: DocumentRef[] = [];
  if (!isObject(document)) return out;
  const entries = (kind: RefPlace["kind"]) => (Array.isArray(document[kind]) ? (document[kind] as unknown[]).filter(isObject) : []);
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  for (const entry of entries("connectors")) {
    const configuration = isObject(entry.configuration) ? entry.configuration : {};
    for (const ref of secretRefs(entry.configuration)) {
      const field = ["configuration", ...(ref.path === "" ? [] : ref.path.split("."))].join(".");
      const place: RefPlace = { kind: "connectors", slug: text(entry.slug), connectorType: text(entry.connector_type), type: text(entry.connector_name), field };
      out.push({ name: ref.name, place, configuration });
    }
  }
  for (const entry of entries("alert_channels")) {
    const name = secretRefName(entry.url);
    if (name !== undefined) out.push({ name, place: { kind: "alert_channels", slug: text(entry.slug), field: "url" } });
  }
  return out;
}

/** The definition of a connector type, as the server lists it (GET /api/v1/connector_definitions). */
export type TargetsLookup = (connectorType: string, connectorName: string) => SecretTargets | undefined;

/** A DATASYNC_SECRET_ reference the CLI refuses to resolve without --allow-env, and why. */
export type MisplacedRef = { name: string; at: RefPlace } & (
  | /** Moved: the workspace's export puts it in another place. */ { reason: "moved"; boundTo: RefPlace }
  | /** In its place, but the connector now points elsewhere: these target fields differ from the export. */ { reason: "target"; boundTo: RefPlace; changed: string[] }
  | /** The connector's definition is unknown, so its target cannot be compared. */ { reason: "unknown"; boundTo: RefPlace }
  | /** Not in the workspace's export (a new connector or alert channel): its target is whatever the file says. */ { reason: "new" }
);

/**
 * What the CLI may resolve from its environment, and what it must refuse.
 *
 * A name listed with --allow-env (the operator chose it) resolves wherever the file puts it. A
 * name with the DATASYNC_SECRET_ prefix needs no flag, so a file from someone else could otherwise
 * send the operator's database password to their own server: by moving the reference into an HTTP
 * destination's header, or by leaving it in place and changing the connector's host. Such a name
 * therefore resolves only where the workspace's current export (`exported`) writes it: the same
 * entry kind, slug, connector type and name, and field, and the same values in the target fields
 * of the connector's definition (host, port, database, URL…; `definitions`) as the export has. A
 * name the export does not have (a new connector or alert channel) is refused too: a new
 * connector's target is whatever the file says, so nothing but the operator's own --allow-env can
 * vouch for it. Any other name is refused.
 */
export function clientSecrets(
  document: Json,
  environment: Readonly<Record<string, string | undefined>>,
  allowed: ReadonlySet<string>,
  exported: Json = {},
  definitions: TargetsLookup = () => undefined,
): { secrets: Record<string, string>; refused: string[]; misplaced: MisplacedRef[]; unset: string[] } {
  const bound = new Map<string, DocumentRef>();
  for (const ref of documentRefs(exported)) bound.set(ref.name, ref);
  const secrets: Record<string, string> = {};
  const refused = new Set<string>();
  const unset = new Set<string>();
  const misplaced: MisplacedRef[] = [];
  for (const ref of documentRefs(document)) {
    const { name } = ref;
    if (!allowed.has(name)) {
      if (!name.startsWith(SECRET_ENV_PREFIX)) {
        refused.add(name);
        continue;
      }
      const problem = boundProblem(ref, bound.get(name), definitions);
      if (problem) {
        misplaced.push(problem);
        continue;
      }
    }
    if (environment[name] === undefined) unset.add(name);
    else secrets[name] = environment[name];
  }
  return { secrets, refused: [...refused], misplaced, unset: [...unset] };
}

/** Why a DATASYNC_SECRET_ reference may not resolve where it stands; undefined when it may. */
function boundProblem(ref: DocumentRef, exported: DocumentRef | undefined, definitions: TargetsLookup): MisplacedRef | undefined {
  const { name, place: at } = ref;
  if (!exported) return { name, at, reason: "new" };
  const boundTo = exported.place;
  if (!samePlace(boundTo, at)) return { name, at, reason: "moved", boundTo };
  if (at.kind !== "connectors") return undefined; // An alert channel's URL is the secret itself: it names its own target.
  const definition = definitions(at.connectorType ?? "", at.type ?? "");
  if (!definition) return { name, at, reason: "unknown", boundTo };
  const changed = changedTargets(ref.configuration ?? {}, exported.configuration ?? {}, definition);
  return changed.length > 0 ? { name, at, reason: "target", boundTo, changed: changed.map((f) => `configuration.${f}`) } : undefined;
}
