// The pure parts of configuration as code: slugs, secret references, YAML, the field diff and the
// document schema (docs/config-as-code.md).
import { describe, expect, it } from "vitest";
import { getDefinition } from "@/lib/connectors/registry";
import type { ConnectorKind } from "@/lib/connectors/types";
import { configDocumentSchema } from "@/lib/validation/config";
import { changedFields, createdFields, sameJson } from "./diff";
import { clientSecrets, maskedToRefs, resolveSecretRefs, secretEnvName, secretRefs } from "./secret-refs";
import { assignSlugs, isSlug, slugify } from "./slugs";
import { ConfigSyntaxError, parseConfigYaml, stringifyConfigYaml } from "./yaml";

describe("slugs", () => {
  it("derive from the name: lower case, no accents, dashes between words, at most 63 characters", () => {
    expect(slugify("Postgres Warehouse (prod)", "connector")).toBe("postgres-warehouse-prod");
    expect(slugify("Crème brûlée — CRM", "connector")).toBe("creme-brulee-crm");
    expect(slugify("  ", "sync")).toBe("sync");
    expect(slugify("日本", "model")).toBe("model");
    const long = slugify("a".repeat(62) + " b", "x");
    expect(long.length).toBeLessThanOrEqual(63);
    expect(isSlug(long)).toBe(true);
  });

  it("are unique per kind: the older object keeps the slug, later ones get -2, -3", () => {
    const slugs = assignSlugs(
      [
        { id: 9, name: "CRM" },
        { id: 3, name: "crm" },
        { id: 5, name: "C.R.M." },
        { id: 7, name: "" },
        { id: 8, name: "" },
      ],
      "sync",
    );
    expect(slugs.get(3)).toBe("crm");
    expect(slugs.get(9)).toBe("crm-2");
    expect(slugs.get(7)).toBe("sync");
    expect(slugs.get(8)).toBe("sync-2");
    expect(slugs.get(5)).toBe("c-r-m");
    expect([...slugs.values()].every(isSlug)).toBe(true);
  });

  it("stay within 63 characters with a suffix", () => {
    const name = "x".repeat(80);
    const slugs = assignSlugs([{ id: 1, name }, { id: 2, name }], "model");
    expect(slugs.get(2)).toBe(`${"x".repeat(61)}-2`);
  });
});

describe("secret references", () => {
  it("replace every masked value by a reference named after the connector and field", () => {
    const masked = { host: "db", password: "*****", headers: { Authorization: "*****" }, list: ["a", "*****"] };
    expect(maskedToRefs(masked, "*****", "crm-api")).toEqual({
      host: "db",
      password: "${env:DATASYNC_SECRET_CRM_API_PASSWORD}",
      headers: { Authorization: "${env:DATASYNC_SECRET_CRM_API_HEADERS_AUTHORIZATION}" },
      list: ["a", "${env:DATASYNC_SECRET_CRM_API_LIST_1}"],
    });
    expect(secretEnvName("x", ["a-b", "c.d"])).toBe("DATASYNC_SECRET_X_A_B_C_D");
  });

  it("resolve only from the secrets sent; a missing one becomes the mask and is listed", () => {
    const config = { password: "${env:PG_PASSWORD}", token: "${env:DATABASE_URL}", note: "costs ${env:X} to read", nested: { k: "${env:K}" } };
    expect(secretRefs(config).map((r) => r.name)).toEqual(["PG_PASSWORD", "DATABASE_URL", "K"]);
    const { value, missing } = resolveSecretRefs(config, { PG_PASSWORD: "s3cret" }, "MASK");
    expect(value).toEqual({ password: "s3cret", token: "MASK", note: "costs ${env:X} to read", nested: { k: "MASK" } });
    expect(missing).toEqual([
      { name: "DATABASE_URL", path: "token" },
      { name: "K", path: "nested.k" },
    ]);
  });

  // The server's definitions (the CLI reads the same ones over GET /api/v1/connector_definitions).
  const definitions = (connectorType: string, connectorName: string) => getDefinition(connectorName, connectorType as ConnectorKind);

  it("the client resolves only allowed names (the DATASYNC_SECRET_ prefix or --allow-env) from its environment", () => {
    const doc = {
      connectors: [{ slug: "a", connector_type: "source", connector_name: "Postgresql", configuration: { host: "db", b: "${env:DATABASE_URL}", c: "${env:PG_PASSWORD}", d: "${env:DATASYNC_SECRET_A_D}", e: { f: "${env:DATASYNC_SECRET_A_E_F}" } } }],
      alert_channels: [{ slug: "ops", url: "${env:DATASYNC_SECRET_OPS_URL}" }],
    };
    const environment = { DATASYNC_SECRET_A_D: "1", DATASYNC_SECRET_OPS_URL: "https://hooks", DATABASE_URL: "postgres://server", PG_PASSWORD: "pw" };
    const result = clientSecrets(doc, environment, new Set(["PG_PASSWORD"]), doc, definitions);
    expect(result.secrets).toEqual({ DATASYNC_SECRET_A_D: "1", DATASYNC_SECRET_OPS_URL: "https://hooks", PG_PASSWORD: "pw" });
    expect(result.refused).toEqual(["DATABASE_URL"]);
    expect(result.misplaced).toEqual([]);
    expect(result.unset).toEqual(["DATASYNC_SECRET_A_E_F"]);
  });

  const password = "${env:DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD}";
  const pg = {
    slug: "warehouse",
    connector_type: "source",
    connector_name: "Postgresql",
    configuration: { host: "db.internal", port: 5432, database: "prod", credentials: { auth_type: "username/password", username: "u", password } },
  };
  const exported = { connectors: [pg] };
  const env = { DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD: "pw", DATASYNC_SECRET_HOOK_HEADERS_X: "x", DATASYNC_SECRET_CACHE_URL: "redis://:pw@cache:6379" };
  const at = { kind: "connectors", slug: "warehouse", connectorType: "source", type: "Postgresql", field: "configuration.credentials.password" };

  it("binds a DATASYNC_SECRET_ name to the connector, type and field it was exported for", () => {
    const hook = (headers: Record<string, string>) => ({ slug: "hook", connector_type: "destination", connector_name: "Http", configuration: { destination_url: "https://evil", headers } });
    // In its own place: resolved.
    expect(clientSecrets(exported, env, new Set(), exported, definitions)).toMatchObject({ secrets: { DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD: "pw" }, misplaced: [] });
    // Moved into another connector's header (with or without the original use).
    for (const connectors of [[hook({ X: password })], [pg, hook({ X: password })]]) {
      const { misplaced, secrets } = clientSecrets({ connectors }, env, new Set(), exported, definitions);
      expect(misplaced).toEqual([
        { name: "DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD", reason: "moved", at: { kind: "connectors", slug: "hook", connectorType: "destination", type: "Http", field: "configuration.headers.X" }, boundTo: at },
      ]);
      // Its lawful use beside the misplaced one still resolves; the CLI then sends nothing at all.
      expect(secrets).toEqual(connectors.length > 1 ? { DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD: "pw" } : {});
    }
    // Another field of the same connector, the same slug as another connector, or as a destination.
    const misplaced = (entry: object) => clientSecrets({ connectors: [entry] }, env, new Set(), exported, definitions).misplaced.map((m) => m.reason);
    expect(misplaced({ ...pg, configuration: { ...pg.configuration, credentials: { ...pg.configuration.credentials, password: "x", username: password } } })).toEqual(["moved"]);
    expect(misplaced({ ...pg, connector_name: "Http" })).toEqual(["moved"]);
    expect(misplaced({ ...pg, connector_type: "destination" })).toEqual(["moved"]);
    // A slug crafted so that its own name collides with an exported one is still refused.
    expect(misplaced({ slug: "warehouse-credentials", connector_type: "destination", connector_name: "Http", configuration: { destination_url: "https://evil", password } })).toEqual(["moved"]);
    // --allow-env names the variable explicitly: the operator's choice, anywhere.
    expect(clientSecrets({ connectors: [hook({ X: password })] }, env, new Set(["DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD"]), exported, definitions).misplaced).toEqual([]);
  });

  it("binds it to the connector's target too: the same reference with another host, port or database is refused, nothing resolved", () => {
    const retarget = (change: Record<string, unknown>) => clientSecrets({ connectors: [{ ...pg, configuration: { ...pg.configuration, ...change } }] }, env, new Set(), exported, definitions);
    // The attack: the reference stays, the host becomes the attacker's server.
    const attack = retarget({ host: "attacker.example" });
    expect(attack.misplaced).toEqual([{ name: "DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD", reason: "target", at, boundTo: at, changed: ["configuration.host"] }]);
    expect(attack.secrets).toEqual({});
    // ssl_mode too: a downgrade to plain TCP would send the password unencrypted.
    for (const [change, field] of [[{ port: 6543 }, "port"], [{ database: "other" }, "database"], [{ host: "attacker.example", port: 1 }, "host"], [{ ssl_mode: "require" }, "ssl_mode"]] as const) {
      const { misplaced, secrets } = retarget(change);
      expect(misplaced.map((m) => m.reason === "target" && m.changed)).toEqual([expect.arrayContaining([`configuration.${field}`])]);
      expect(secrets).toEqual({});
    }
    // The same target, written differently (a port as text) or with other fields changed: resolved.
    expect(retarget({ port: "5432", schema: "other" })).toMatchObject({ misplaced: [], secrets: { DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD: "pw" } });
    // A URL target (Http headers): the destination URL changed.
    const http = { slug: "hook", connector_type: "destination", connector_name: "Http", configuration: { destination_url: "https://crm.example/in", headers: { X: "${env:DATASYNC_SECRET_HOOK_HEADERS_X}" } } };
    const moved = clientSecrets({ connectors: [{ ...http, configuration: { ...http.configuration, destination_url: "https://evil.example/in" } }] }, env, new Set(), { connectors: [http] }, definitions);
    expect(moved.misplaced).toMatchObject([{ reason: "target", changed: ["configuration.destination_url"] }]);
    expect(moved.secrets).toEqual({});
    const added = clientSecrets({ connectors: [{ ...http, configuration: { ...http.configuration, insert_url: "https://evil.example/in" } }] }, env, new Set(), { connectors: [http] }, definitions);
    expect(added.misplaced).toMatchObject([{ reason: "target", changed: ["configuration.insert_url"] }]);
    // A connector whose definition the server does not list cannot be checked: refused.
    expect(clientSecrets(exported, env, new Set(), exported, () => undefined).misplaced).toMatchObject([{ reason: "unknown" }]);
    // --allow-env: the operator gives the secret again, to the new host.
    expect(clientSecrets({ connectors: [{ ...pg, configuration: { ...pg.configuration, host: "new.internal" } }] }, env, new Set(["DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD"]), exported, definitions)).toMatchObject({ misplaced: [], secrets: { DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD: "pw" } });
  });

  it("refuses a name the export does not have (a new connector: its target is whatever the file says) unless --allow-env names it", () => {
    const fresh = { ...pg, slug: "copy", configuration: { ...pg.configuration, credentials: { ...pg.configuration.credentials, password: "${env:DATASYNC_SECRET_COPY_CREDENTIALS_PASSWORD}" } } };
    const environment = { DATASYNC_SECRET_COPY_CREDENTIALS_PASSWORD: "pw" };
    // Even with the name export would give it, and in an empty workspace (another workspace's secrets in the environment).
    for (const workspace of [exported, {}]) {
      const { misplaced, secrets } = clientSecrets({ connectors: [fresh] }, environment, new Set(), workspace, definitions);
      expect(misplaced).toEqual([{ name: "DATASYNC_SECRET_COPY_CREDENTIALS_PASSWORD", reason: "new", at: { ...at, slug: "copy" } }]);
      expect(secrets).toEqual({});
    }
    expect(clientSecrets({ connectors: [fresh] }, environment, new Set(["DATASYNC_SECRET_COPY_CREDENTIALS_PASSWORD"]), exported, definitions).secrets).toEqual(environment);
  });
});

describe("YAML", () => {
  it("round-trips a document and keeps key order", () => {
    const doc = { version: 1, connectors: [{ slug: "a", name: "A", configuration: { port: 5432, password: "${env:X}" } }] };
    const text = stringifyConfigYaml(doc);
    expect(text.indexOf("version")).toBeLessThan(text.indexOf("connectors"));
    expect(parseConfigYaml(text)).toEqual(doc);
    expect(stringifyConfigYaml(parseConfigYaml(text))).toBe(text);
  });

  it("refuses duplicate keys, several documents, bad syntax and alias bombs", () => {
    expect(() => parseConfigYaml("a: 1\na: 2\n")).toThrow(ConfigSyntaxError);
    expect(() => parseConfigYaml("a: 1\n---\nb: 2\n")).toThrow(ConfigSyntaxError);
    expect(() => parseConfigYaml("a: [1, 2\n")).toThrow(ConfigSyntaxError);
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x]", ...Array.from({ length: 12 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`)].join("\n");
    expect(() => parseConfigYaml(bomb)).toThrow(ConfigSyntaxError);
  });

  it("refuses deep flow nesting before parsing, whatever follows, and keeps 64 levels", () => {
    expect(() => parseConfigYaml("[".repeat(1_000_000))).toThrow(/nests \[\.\.\.\] and \{\.\.\.\} deeper than 64 levels/);
    expect(() => parseConfigYaml(`a: ${"{b: ".repeat(65)}1${"}".repeat(65)}\n`)).toThrow(/deeper than 64 levels/);
    expect(parseConfigYaml(`a: ${"[".repeat(64)}1${"]".repeat(64)}\n`)).toMatchObject({ a: expect.any(Array) });
    // Brackets inside quoted strings are text, not nesting.
    expect(parseConfigYaml(`a: "${"[".repeat(100)}"\n`)).toEqual({ a: "[".repeat(100) });
  });

  it("finds duplicate keys in a map of 50,000 keys (one pass, not every pair), as JavaScript names them", () => {
    const keys = Array.from({ length: 50_000 }, (_, i) => `k${i}: ${i}`);
    expect(Object.keys(parseConfigYaml(keys.join("\n")) as object)).toHaveLength(50_000);
    expect(() => parseConfigYaml([...keys, "k7: again"].join("\n"))).toThrow(/the key "k7" appears twice in one map at line 50001/);
    expect(() => parseConfigYaml(`{${keys.join(", ")}, k49999: again}`)).toThrow(/"k49999" appears twice/);
    expect(() => parseConfigYaml('a: {1: x, "1": y}\n')).toThrow(/"1" appears twice/);
    expect(() => parseConfigYaml("? [a, b]\n: 1\n")).toThrow(/a key must be a plain value/);
  });

  it("reads only what JSON can hold: no Buffer, Set, Map or Date from YAML 1.1 tags, no custom tags, no .nan or .inf", () => {
    for (const text of ["a: !!binary aGVsbG8=", "a: !!set {x, y}", "a: !!omap [{x: 1}]", "a: !!timestamp 2020-01-01", "a: !foo x", "a: !!pairs [{x: 1}]"]) {
      expect(() => parseConfigYaml(text), text).toThrow(/Unresolved tag/);
    }
    for (const text of ["a: .nan", "a: [1, -.inf]", "a: {b: .Inf}"]) expect(() => parseConfigYaml(text), text).toThrow(/is not a finite number at line 1/);
    expect(parseConfigYaml("a: !!str 1\nb: !!int 2\nc: 1e3\n")).toEqual({ a: "1", b: 2, c: 1000 });
  });

  it("reads the YAML 1.2 core schema: `no` and `on` are strings, not booleans", () => {
    expect(parseConfigYaml("a: no\nb: on\nc: true\nd: 010\n")).toEqual({ a: "no", b: "on", c: true, d: 10 });
  });
});

describe("the field diff", () => {
  it("compares only the fields the file sets; configurations leaf by leaf; secrets without values", () => {
    const current = { name: "A", description: "x", configuration: { host: "h1", port: 1, password: "old" }, catalog: { streams: [] } };
    const desired = { slug: "a", name: "B", configuration: { host: "h2", port: 1, password: "new" } };
    expect(changedFields(current, desired, { nested: ["configuration"], secret: (p) => p === "configuration.password" })).toEqual([
      { field: "name", before: "A", after: "B" },
      { field: "configuration.host", before: "h1", after: "h2" },
      { field: "configuration.password", secret: true },
    ]);
    expect(changedFields(current, { name: "A" })).toEqual([]);
  });

  it("shows objects and lists changed without values; a create lists what it sets", () => {
    expect(changedFields({ configuration: [{ from: "a", to: "b" }] }, { configuration: [{ from: "a", to: "c" }] })).toEqual([{ field: "configuration" }]);
    expect(createdFields({ slug: "s", name: "S", guard: null })).toEqual([
      { field: "name", after: "S" },
      { field: "guard", after: null },
    ]);
    // A create lists a configuration leaf by leaf, its secrets without values.
    expect(createdFields({ configuration: { host: "h", auth: { password: "p" } } }, { nested: ["configuration"], secret: (p) => p.endsWith("password") })).toEqual([
      { field: "configuration.host", after: "h" },
      { field: "configuration.auth.password", secret: true },
    ]);
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
  });
});

describe("the document schema", () => {
  const connector = { slug: "wh", name: "Warehouse", connector_type: "source", connector_name: "Postgresql", configuration: { host: "h" } };

  it("takes a minimal document and every kind", () => {
    expect(configDocumentSchema.safeParse({ version: 1 }).success).toBe(true);
    const parsed = configDocumentSchema.parse({
      version: 1,
      prune: true,
      connectors: [connector],
      models: [{ slug: "m", name: "M", connector: "wh", query: "SELECT 1 AS id", query_type: "raw_sql", primary_key: "id" }],
      syncs: [{ slug: "s", source: "wh", destination: "crm", model: "m", stream_name: "contacts", sync_mode: "full_refresh", schedule_type: "manual", run_after: ["t"] }],
      alert_channels: [{ slug: "ops", name: "Ops", channel_type: "slack", url: "${env:DATASYNC_SECRET_OPS_URL}" }],
      alert_rules: [{ slug: "r", name: "R", sync: "s", condition: "rejected_rows", threshold: 5, channels: ["ops"] }],
    });
    expect(parsed.models?.[0].primary_key).toBe("id");
    expect(parsed.alert_rules?.[0].channels).toEqual(["ops"]);
  });

  it("refuses another version, unknown top-level keys, bad and repeated slugs, and a broken schedule, by path", () => {
    const issues = (doc: unknown) => {
      const r = configDocumentSchema.safeParse(doc);
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    };
    expect(issues({ version: 2 })).toEqual(["version: must be 1"]);
    expect(issues({ version: 1, alerts: [] })[0]).toContain("knows the top-level keys");
    expect(issues({ version: 1, connectors: [{ ...connector, slug: "Not A Slug" }] })[0]).toMatch(/^connectors\.0\.slug: must be lower-case/);
    expect(issues({ version: 1, connectors: [connector, { ...connector, name: "Other" }] })).toEqual([
      'connectors.1.slug: "wh" is used by another connector entry; slugs are unique per kind',
    ]);
    // The alert kinds check what their API checks: a channel's fields by type, a rule's threshold by condition.
    expect(
      issues({
        version: 1,
        alert_channels: [{ slug: "c", name: "C", channel_type: "email" }],
        alert_rules: [{ slug: "r", name: "R", condition: "run_duration", channels: [] }],
        syncs: [{ slug: "s", source: "a", destination: "b", model: "m", stream_name: "x", sync_mode: "full_refresh", schedule_type: "manual", run_after: ["Not A Slug"] }],
      }),
    ).toEqual([
      "syncs.0.run_after.0: must be lower-case letters, digits and dashes (not at either end), at most 63 characters",
      "alert_channels.0.recipients: is required for an email channel",
      "alert_rules.0.channels: must name at least one channel",
      "alert_rules.0.threshold: is required for run_duration (in minutes)",
    ]);
    const sync = { slug: "s", source: "a", destination: "b", model: "m", stream_name: "x", sync_mode: "full_refresh", schedule_type: "interval" };
    expect(issues({ version: 1, syncs: [sync] })).toEqual([
      "syncs.0.sync_interval: must be greater than 0 when schedule_type is interval",
      "syncs.0.sync_interval_unit: is required when schedule_type is interval",
    ]);
  });
});
