// The pure parts of configuration as code: slugs, secret references, YAML, the field diff and the
// document schema (docs/config-as-code.md).
import { describe, expect, it } from "vitest";
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

  it("the client resolves only allowed names (the DATASYNC_SECRET_ prefix or --allow-env) from its environment", () => {
    const doc = {
      connectors: [{ slug: "a", connector_name: "Postgresql", configuration: { b: "${env:DATABASE_URL}", c: "${env:PG_PASSWORD}", d: "${env:DATASYNC_SECRET_A_D}", e: { f: "${env:DATASYNC_SECRET_A_E_F}" } } }],
      alert_channels: [{ slug: "ops", url: "${env:DATASYNC_SECRET_OPS_URL}" }],
    };
    const environment = { DATASYNC_SECRET_A_D: "1", DATASYNC_SECRET_OPS_URL: "https://hooks", DATABASE_URL: "postgres://server", PG_PASSWORD: "pw" };
    const result = clientSecrets(doc, environment, new Set(["PG_PASSWORD"]));
    expect(result.secrets).toEqual({ DATASYNC_SECRET_A_D: "1", DATASYNC_SECRET_OPS_URL: "https://hooks", PG_PASSWORD: "pw" });
    expect(result.refused).toEqual(["DATABASE_URL"]);
    expect(result.misplaced).toEqual([]);
    expect(result.unset).toEqual(["DATASYNC_SECRET_A_E_F"]);
  });

  it("binds a DATASYNC_SECRET_ name to the connector, type and field it was exported for", () => {
    const pg = { slug: "warehouse", connector_name: "Postgresql", configuration: { credentials: { password: "${env:DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD}" } } };
    const exported = { connectors: [pg] };
    const env = { DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD: "pw", DATASYNC_SECRET_HOOK_HEADERS_X: "x" };
    const hook = (headers: Record<string, string>) => ({ slug: "hook", connector_name: "Http", configuration: { destination_url: "https://evil", headers } });
    // In its own place: resolved.
    expect(clientSecrets(exported, env, new Set(), exported)).toMatchObject({ secrets: { DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD: "pw" }, misplaced: [] });
    // Moved into another connector's header (with or without the original use).
    for (const connectors of [[hook({ X: pg.configuration.credentials.password })], [pg, hook({ X: pg.configuration.credentials.password })]]) {
      const { misplaced } = clientSecrets({ connectors }, env, new Set(), exported);
      expect(misplaced).toEqual([
        { name: "DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD", at: { kind: "connectors", slug: "hook", type: "Http", field: "configuration.headers.X" }, boundTo: { kind: "connectors", slug: "warehouse", type: "Postgresql", field: "configuration.credentials.password" } },
      ]);
    }
    // Another field of the same connector, or the same slug turned into another type.
    expect(clientSecrets({ connectors: [{ ...pg, configuration: { host: pg.configuration.credentials.password } }] }, env, new Set(), exported).misplaced).toHaveLength(1);
    expect(clientSecrets({ connectors: [{ ...pg, connector_name: "Http" }] }, env, new Set(), exported).misplaced).toHaveLength(1);
    // A slug crafted so that its own name collides with an exported one is still refused.
    const collide = { slug: "warehouse-credentials", connector_name: "Http", configuration: { password: "${env:DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD}" } };
    expect(clientSecrets({ connectors: [collide] }, env, new Set(), exported).misplaced).toHaveLength(1);
    // A name not exported (a new connector's) must be the one its place would get, used once.
    expect(clientSecrets({ connectors: [hook({ X: "${env:DATASYNC_SECRET_HOOK_HEADERS_X}" })] }, env, new Set(), exported).misplaced).toEqual([]);
    expect(clientSecrets({ connectors: [hook({ X: "${env:DATASYNC_SECRET_HOOK_HEADERS_X}", Y: "${env:DATASYNC_SECRET_HOOK_HEADERS_X}" })] }, env, new Set(), exported).misplaced).toHaveLength(1);
    // --allow-env names the variable explicitly: the operator's choice, anywhere.
    expect(clientSecrets({ connectors: [hook({ X: pg.configuration.credentials.password })] }, env, new Set(["DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD"]), exported).misplaced).toEqual([]);
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
