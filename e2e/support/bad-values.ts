// The values of the bad-input sweep (e2e/api/bad-input.spec.ts): bad ids, pages and enums for paths
// and queries, wrong-type replacements for a body's fields, hostile strings, the body-path helpers
// that put them in place, and the fields whose removal is allowed.

const LONG = "x".repeat(300_000);
export const SQLISH = ["' OR '1'='1", "1; DROP TABLE users; --", '") UNION SELECT password_hash FROM users --'];
export const UNICODE = ["Ωmega 名前 🙂 \u202eRTL", "\u0000nul", "e\u0301\ud83d\ude00"];

export const BAD_IDS = [
  "abc",
  "0",
  "-1",
  "1.5",
  "1e3",
  "0x10",
  "2147483648",
  "99999999999999999999",
  "%27%20OR%201%3D1--",
  "%00",
  "%E2%9C%93",
  "%201",
  "9".repeat(500),
];
export const BAD_PAGES = ["0", "-1", "1.5", "abc", "99999999999999999999999", "%00", "1e3"];
export const BAD_QUERY_IDS = [
  "abc",
  "-1",
  "1.5",
  "9999999999",
  "99999999999",
  "9999999999999999999",
  "99999999999999999999",
  "%27--",
  "%00",
];
export const BAD_ENUMS = ["bogus", "SOURCE", "%27%20OR%201%3D1--", "%00", "x".repeat(5000)];

/**
 * A number written as a string. Ids take a string of digits too, so it must name no record: a small
 * one ("12") is, sooner or later, the id of a real connector of the sweep's workspace, and accepted.
 */
export const DIGIT_STRING = "987654321";

/** Wrong-type replacements for a value of the given JSON type. */
export function wrongTypes(value: unknown): unknown[] {
  if (typeof value === "string") return [12345, true, {}, [], LONG];
  if (typeof value === "number")
    return [DIGIT_STRING, true, {}, [], 1.5, -1, 0, 1e308, 2147483648, 2 ** 53 + 2, "NaN"];
  if (typeof value === "boolean") return ["true", 1, {}, []];
  if (Array.isArray(value)) return ["x", 1, true];
  if (value && typeof value === "object") return ["x", 1, [], true];
  return [];
}

type Json = Record<string, unknown>;

/** Every field path of a body, depth first (array items included). */
export function fieldPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value))
    return value.flatMap((v, i) => [[...prefix, i], ...fieldPaths(v, [...prefix, i])]);
  if (value && typeof value === "object") {
    return Object.entries(value as Json).flatMap(([k, v]) => [
      [...prefix, k],
      ...fieldPaths(v, [...prefix, k]),
    ]);
  }
  return [];
}

export function getAt(body: unknown, p: (string | number)[]): unknown {
  return p.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)?.[key], body);
}

export function withAt(body: Json, p: (string | number)[], value: unknown | typeof REMOVE): Json {
  const copy = structuredClone(body);
  const parent = getAt(copy, p.slice(0, -1)) as Record<string | number, unknown>;
  const key = p[p.length - 1];
  if (value === REMOVE) {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  } else parent[key] = value;
  return copy;
}
export const REMOVE = Symbol("remove");

/** Required fields whose removal must be refused, by endpoint (other fields are optional by design). */
export const OPTIONAL_FIELDS = new Set([
  "connector.description",
  "type",
  "limit",
  "sync.name",
  "sync.configuration",
  "sync.configuration.0",
  "sync.configuration.0.mapping_type",
  "sync.configuration.0.from",
  "role.role_desc",
  "member.name",
  "member.password",
  "catalog.streams.0",
  "connector_id",
  "model.description",
  "model.primary_key",
  "sync.description",
  "role.policies.permissions.sync",
  "role.policies.permissions.sync.read",
  "connection_spec.schema",
  "connection_spec.port",
  "connection_spec.credentials.password",
  "configuration.schema",
  "connector.configuration.schema",
  "connector.configuration.port",
  "connector.configuration.credentials.password",
  "webhook_subscription.sync_ids",
  // A rule without a sync watches every sync of the workspace.
  "alert_rule.sync_id",
]);
