// `ENV['X']` placeholders in connector configurations: the operator keeps a credential in the
// server's environment and tenants refer to it by name. Only the variables the operator lists in
// CONNECTOR_ENV_ALLOWLIST resolve (none by default), the server's own credentials never do, and
// every resolved value is treated as a secret: scrubbed from any sentence shown to a tenant.
import { env } from "@/lib/settings/env";
import { redact } from "./shared/secrets";

const ENV_PLACEHOLDER = /^\s*ENV\[(["'])([A-Za-z_][A-Za-z0-9_]*)\1\]\s*$/;

/** The server's own credentials: no allow-list can hand them to a connector. */
const NEVER_RESOLVED = new Set([
  "DATABASE_URL",
  "TEST_DATABASE_URL",
  "JWT_SECRET",
  "ENCRYPTION_KEY",
  "NEXTAUTH_SECRET",
  "AUTH_SECRET",
  "ADMIN_PASSWORD",
  "METRICS_TOKEN",
]);

export class EnvironmentPlaceholderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EnvironmentPlaceholderError";
  }
}

function allowList(): Set<string> {
  const names = (env.CONNECTOR_ENV_ALLOWLIST ?? "").split(",").map((n) => n.trim());
  return new Set(names.filter((n) => n !== "" && !NEVER_RESOLVED.has(n)));
}

interface Placeholder {
  /** Dotted path of the field, e.g. `credentials.password`. */
  path: string;
  name: string;
}

/** Every `ENV['X']` in a configuration, at any depth. */
function placeholders(config: unknown, path: string[] = [], out: Placeholder[] = []): Placeholder[] {
  if (typeof config === "string") {
    const match = ENV_PLACEHOLDER.exec(config);
    if (match) out.push({ path: path.join("."), name: match[2] });
  } else if (Array.isArray(config)) {
    config.forEach((v, i) => placeholders(v, [...path, String(i)], out));
  } else if (config && typeof config === "object") {
    for (const [k, v] of Object.entries(config)) placeholders(v, [...path, k], out);
  }
  return out;
}

/** Why `name` may not resolve, as a sentence; undefined when it may. Never reveals the value. */
function refusal(name: string, allowed: Set<string>): string | undefined {
  if (!allowed.has(name)) {
    return `The configuration refers to ENV['${name}'], which this server does not share with connectors; its operator can list it in CONNECTOR_ENV_ALLOWLIST.`;
  }
  if (process.env[name] === undefined) {
    return `The configuration refers to ENV['${name}'], but that environment variable is not set on the server.`;
  }
  return undefined;
}

/**
 * The placeholders naming a variable the server does not share, each with its field and why; [] when
 * none. (An allowed but unset variable is reported at use: it may be set where the runs happen.)
 */
export function envPlaceholderProblems(config: unknown): { path: string; message: string }[] {
  const allowed = allowList();
  return placeholders(config).flatMap(({ path, name }) => {
    const message = allowed.has(name) ? undefined : refusal(name, allowed);
    return message ? [{ path, message }] : [];
  });
}

/**
 * A copy where every allowed `ENV['X']` / `ENV["X"]` is replaced by process.env.X. Call it at use
 * time, never before storing, so the stored configuration keeps the placeholder. Throws
 * EnvironmentPlaceholderError when a variable is not allowed or not set.
 */
export function resolveEnvPlaceholders<T>(config: T): T {
  const allowed = allowList();
  const visit = (value: unknown): unknown => {
    if (typeof value === "string") {
      const match = ENV_PLACEHOLDER.exec(value);
      if (!match) return value;
      const refused = refusal(match[2], allowed);
      if (refused) throw new EnvironmentPlaceholderError(refused);
      return process.env[match[2]];
    }
    if (Array.isArray(value)) return value.map(visit);
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(v)]));
    return value;
  };
  return visit(config) as T;
}

/** Scrubs what the placeholders of `config` resolve to out of a sentence meant for the tenant. */
export function envRedactor(config: unknown): (message: string) => string {
  const allowed = allowList();
  const values = placeholders(config)
    .map((p) => p.name)
    .filter((name) => allowed.has(name))
    .map((name) => process.env[name])
    .filter((v): v is string => typeof v === "string" && v.length >= 3);
  if (values.length === 0) return (message) => message;
  // Longest first, so a value containing another is scrubbed whole.
  values.sort((a, b) => b.length - a.length);
  return (message) => redact(message, values);
}
