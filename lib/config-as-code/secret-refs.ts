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

/**
 * What the CLI may resolve: names listed with --allow-env, and names with the DATASYNC_SECRET_
 * prefix. Returns the values found in `environment` and the names it refused or could not find.
 */
export function clientSecrets(
  document: Json,
  environment: Readonly<Record<string, string | undefined>>,
  allowed: ReadonlySet<string>,
): { secrets: Record<string, string>; refused: string[]; unset: string[] } {
  const secrets: Record<string, string> = {};
  const refused = new Set<string>();
  const unset = new Set<string>();
  for (const { name } of secretRefs(document)) {
    if (!allowed.has(name) && !name.startsWith(SECRET_ENV_PREFIX)) refused.add(name);
    else if (environment[name] === undefined) unset.add(name);
    else secrets[name] = environment[name];
  }
  return { secrets, refused: [...refused], unset: [...unset] };
}
