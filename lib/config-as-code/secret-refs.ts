// `${env:NAME}` references in connector configurations (docs/config-as-code.md). Export writes one
// wherever a secret was; the client (the CLI) resolves them from the operator's environment
// through an allow-list and sends the values in the request's `secrets`. The server resolves them
// only from that map: it never reads its own environment for them, so a tenant writing
// ${env:DATABASE_URL} gets a 422, not the server's database password.

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
  /** The entry's connector_name (connectors only): a reference exported for a PostgreSQL password is not an HTTP header's. */
  type?: string;
  /** The field, as the file writes it: `configuration.credentials.password`, `url`. */
  field: string;
}

/** How an error names a place: `connector "warehouse" at configuration.credentials.password`. */
export function describePlace(place: RefPlace): string {
  return `${place.kind === "connectors" ? "connector" : "alert channel"} "${place.slug}" at ${place.field}`;
}

const samePlace = (a: RefPlace, b: RefPlace) => a.kind === b.kind && a.slug === b.slug && a.field === b.field && (a.type ?? "") === (b.type ?? "");

/**
 * Every reference where one may stand (connector configurations and alert channel URLs), with its
 * place and the variable name export would give that place.
 */
export function documentRefs(document: Json): { name: string; place: RefPlace; canonical: string }[] {
  const out: { name: string; place: RefPlace; canonical: string }[] = [];
  if (!isObject(document)) return out;
  const entries = (kind: RefPlace["kind"]) => (Array.isArray(document[kind]) ? (document[kind] as unknown[]).filter(isObject) : []);
  for (const entry of entries("connectors")) {
    const slug = typeof entry.slug === "string" ? entry.slug : "";
    const type = typeof entry.connector_name === "string" ? entry.connector_name : "";
    for (const ref of secretRefs(entry.configuration)) {
      const path = ref.path === "" ? [] : ref.path.split(".");
      out.push({ name: ref.name, place: { kind: "connectors", slug, type, field: ["configuration", ...path].join(".") }, canonical: secretEnvName(slug, path) });
    }
  }
  for (const entry of entries("alert_channels")) {
    const slug = typeof entry.slug === "string" ? entry.slug : "";
    const name = secretRefName(entry.url);
    if (name !== undefined) out.push({ name, place: { kind: "alert_channels", slug, field: "url" }, canonical: secretEnvName(slug, ["url"]) });
  }
  return out;
}

/** A DATASYNC_SECRET_ reference found where it was not exported for, and where it may stand. */
export interface MisplacedRef {
  name: string;
  at: RefPlace;
  /** The one place the workspace's export puts it, when it does. */
  boundTo?: RefPlace;
}

/**
 * What the CLI may resolve from its environment, and what it must refuse.
 *
 * A name listed with --allow-env (the operator chose it) resolves wherever the file puts it. A
 * name with the DATASYNC_SECRET_ prefix needs no flag, so a file from someone else could otherwise
 * move the operator's database password into an HTTP destination's header pointed at their server.
 * Such a name is therefore bound to the place it was exported for: where the workspace's current
 * export (`exported`) writes it, the entry's kind, slug, connector type and field must be the same;
 * a name the workspace does not export (a new connector's secret) must be the one export would
 * give its place (DATASYNC_SECRET_<SLUG>_<FIELD PATH>). Either way it may stand in one place only.
 * Any other name is refused.
 */
export function clientSecrets(
  document: Json,
  environment: Readonly<Record<string, string | undefined>>,
  allowed: ReadonlySet<string>,
  exported: Json = {},
): { secrets: Record<string, string>; refused: string[]; misplaced: MisplacedRef[]; unset: string[] } {
  const bound = new Map<string, RefPlace>();
  for (const ref of documentRefs(exported)) bound.set(ref.name, ref.place);
  const secrets: Record<string, string> = {};
  const refused = new Set<string>();
  const unset = new Set<string>();
  const misplaced: MisplacedRef[] = [];
  const seen = new Map<string, RefPlace>();
  for (const { name, place, canonical } of documentRefs(document)) {
    if (!allowed.has(name)) {
      if (!name.startsWith(SECRET_ENV_PREFIX)) {
        refused.add(name);
        continue;
      }
      const boundTo = bound.get(name);
      const first = seen.get(name);
      seen.set(name, first ?? place);
      if ((boundTo ? !samePlace(boundTo, place) : name !== canonical) || (first && !samePlace(first, place))) {
        misplaced.push({ name, at: place, ...(boundTo ? { boundTo } : {}) });
        continue;
      }
    }
    if (environment[name] === undefined) unset.add(name);
    else secrets[name] = environment[name];
  }
  return { secrets, refused: [...refused], misplaced, unset: [...unset] };
}
