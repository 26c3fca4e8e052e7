import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { JSON_SCHEMA_DRAFT } from "./shared/spec";
import {
  getDefinition,
  listDefinitions,
  loadDestination,
  loadSource,
  maskSecrets,
  mergeMaskedSecrets,
  secretPaths,
  SECRET_MASK,
  SecretTargetChangedError,
  validateConfiguration,
} from "./registry";

const pg = getDefinition("Postgresql", "source")!;
const http = getDefinition("http", "destination")!;
const slack = getDefinition("SLACK")!;

describe("definitions", () => {
  it("lists the connectors of docs/connectors.md, keyed by type and name", () => {
    const names = (type: "source" | "destination") => listDefinitions({ type }).map((d) => d.name);
    // The "What is there" table of docs/connectors.md is the list: a connector is added to both.
    const documented = (type: "source" | "destination") =>
      [...readFileSync(path.join(process.cwd(), "docs/connectors.md"), "utf8").matchAll(new RegExp(`^\\| ${type} \\| \`(\\w+)\``, "gm"))].map((m) => m[1]);
    for (const type of ["source", "destination"] as const) {
      expect(names(type).slice().sort(), type).toEqual([...new Set(documented(type))].sort());
    }
    expect(names("source")).toEqual(expect.arrayContaining(["Postgresql", "MariaDB", "DuckDB", "HttpModel", "OpenAI"]));
    expect(listDefinitions({ category: "ai_ml" }).map((d) => `${d.connectorType}:${d.name}`)).toEqual([
      "source:HttpModel",
      "source:OpenAI",
      "source:Anthropic",
      "source:AwsBedrockModel",
      "source:AwsSagemakerModel",
      "source:VertexModel",
      "source:DatabricksModel",
      "source:WatsonxAi",
      "source:GenericOpenAI",
    ]);
    expect(listDefinitions({ type: "destination", category: "ai_ml" })).toEqual([]);
    expect(getDefinition("postgresql", "destination")?.connectorType).toBe("destination");
    expect(getDefinition("POSTGRESQL")?.connectorType).toBe("source");
    expect(getDefinition("nope")).toBeUndefined();
  });

  it("gives every definition an icon that exists, a documentation URL and titled fields", () => {
    for (const d of listDefinitions()) {
      expect(existsSync(path.join(process.cwd(), "public", d.icon)), d.icon).toBe(true);
      expect(d.documentationUrl).toMatch(/^https:\/\//);
      const visit = (schema: Record<string, unknown>, where: string) => {
        for (const [key, child] of Object.entries((schema.properties ?? {}) as Record<string, Record<string, unknown>>)) {
          expect(typeof child.title === "string" && typeof child.description === "string", `${d.name}.${where}${key}`).toBe(true);
          visit(child, `${where}${key}.`);
        }
      };
      visit(d.connectionSpecification, "");
      // Every schema compiles under ajv strict mode (custom keywords declared).
      expect(Array.isArray(validateConfiguration(d, {}))).toBe(true);
    }
  });

  // The reference console (ui/src/components/JSONSchemaForm) validates with @rjsf/validator-ajv8:
  // ajv's default class, i.e. draft-07, with strict off; a 2020-12 `$schema` makes it throw.
  it("serves draft-07 specifications that an rjsf-style ajv compiles, with no keyword of later drafts", () => {
    const rjsfLike = new Ajv({ allErrors: true, multipleOfPrecision: 8, strict: false, verbose: true, discriminator: false });
    addFormats(rjsfLike);
    const later = /"(\$defs|\$anchor|\$dynamicRef|\$dynamicAnchor|\$recursiveRef|prefixItems|dependentRequired|dependentSchemas|unevaluatedProperties|unevaluatedItems|minContains|maxContains)":/;
    for (const d of listDefinitions()) {
      const spec = d.connectionSpecification;
      expect(spec.$schema, d.name).toBe(JSON_SCHEMA_DRAFT);
      expect(rjsfLike.validateSchema(spec), `${d.name}: ${JSON.stringify(rjsfLike.errors)}`).toBe(true);
      expect(() => rjsfLike.compile(spec), d.name).not.toThrow();
      expect(JSON.stringify(spec), d.name).not.toMatch(later);
    }
  });

  it("marks every secret string with the reference's multiwoven_secret too, and nothing else", () => {
    const marked = (schema: Record<string, unknown>, at: string[] = []): string[] =>
      Object.entries(schema).flatMap(([key, child]) => {
        if (key === "multiwoven_secret" && child === true) return [at.join(".")];
        return child && typeof child === "object" ? marked(child as Record<string, unknown>, [...at, key]) : [];
      });
    const paths = (d: ReturnType<typeof listDefinitions>[number]) =>
      marked(d.connectionSpecification).map((p) => p.replace(/(^|\.)properties\./g, "$1").replace(/^properties\./, ""));
    expect(paths(pg)).toEqual(["credentials.password"]);
    // A secret object of strings (headers) carries it on its values, where rjsf reads additionalProperties.
    expect(paths(http)).toEqual(["headers.additionalProperties", "hmac_secret"]);
    expect(paths(slack)).toEqual(["api_token", "bot_token", "webhook_url"]);
    for (const d of listDefinitions()) {
      expect(paths(d).map((p) => p.replace(/\.additionalProperties$/, "")), d.name).toEqual(secretPaths(d));
    }
  });

  it("looks connectors up case-insensitively and explains unknown names", async () => {
    expect((await loadSource("mariadb")).definition.name).toBe("MariaDB");
    expect((await loadDestination("SLACK")).definition.name).toBe("Slack");
    const known = listDefinitions({ type: "source" }).map((d) => d.name).join(", ");
    await expect(loadSource("Slack")).rejects.toThrow(`Unknown source "Slack". Known sources: ${known}.`);
    await expect(loadDestination("Kafka")).rejects.toThrow(/Unknown destination "Kafka"/);
  });

  it("loads every implementation on first use, carrying the very definition the catalogue lists", async () => {
    for (const d of listDefinitions()) {
      const load = () => (d.connectorType === "source" ? loadSource(d.name) : loadDestination(d.name));
      const connector = await load();
      expect(connector.definition, `${d.connectorType} ${d.name}`).toBe(d);
      expect(await load(), `${d.connectorType} ${d.name}`).toBe(connector);
    }
  });

  it("imports no client library with the registry itself: definitions only", () => {
    // A fresh process, as a worker starts: what importing the registry alone brings in.
    const script = `require(${JSON.stringify(path.join(process.cwd(), "lib/connectors/registry.ts"))});
      process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
    const loaded = JSON.parse(
      execFileSync(process.execPath, ["--import", "tsx", "-e", script], { cwd: process.cwd(), encoding: "utf8", env: { ...process.env, TSX_TSCONFIG_PATH: "tsconfig.node.json" } }),
    ) as string[];
    expect(loaded.some((f) => f.endsWith("lib/connectors/registry.ts"))).toBe(true);
    for (const heavy of ["@aws-sdk", "ssh2", "mysql2", "oracledb", "mssql", "@duckdb", "lib/connectors/postgresql/source.ts"]) {
      expect(loaded.filter((f) => f.includes(heavy)), heavy).toEqual([]);
    }
  });
});

describe("secrets", () => {
  const stored = {
    host: "db",
    port: "5432",
    database: "app",
    credentials: { auth_type: "username/password", username: "app", password: "hunter2" },
  };

  it("lists secret paths at any depth", () => {
    expect(secretPaths(pg)).toEqual(["credentials.password"]);
    expect(secretPaths(http)).toEqual(["headers", "hmac_secret"]);
    expect(secretPaths(slack)).toEqual(["api_token", "bot_token", "webhook_url"]);
  });

  it("masks secret values without touching the input, keeping secret objects' keys", () => {
    const masked = maskSecrets(stored, pg);
    expect(masked).toEqual({ ...stored, credentials: { ...stored.credentials, password: SECRET_MASK } });
    expect(stored.credentials.password).toBe("hunter2");
    expect(maskSecrets({ destination_url: "https://x", headers: { Authorization: "Bearer t", "X-Team": "a" } }, http)).toEqual({
      destination_url: "https://x",
      headers: { Authorization: SECRET_MASK, "X-Team": SECRET_MASK },
    });
  });

  it("keeps the stored secret when the mask comes back on update", () => {
    const incoming = { ...maskSecrets(stored, pg), schema: "other", port: 5432 };
    expect(mergeMaskedSecrets(incoming, stored, pg)).toEqual({ ...stored, schema: "other", port: 5432 });
    const changed = { ...incoming, host: "db2", credentials: { ...stored.credentials, password: "new-pass" } };
    expect(mergeMaskedSecrets(changed, stored, pg).credentials).toMatchObject({ password: "new-pass" });
    const headers = mergeMaskedSecrets(
      { destination_url: "https://x", headers: { Authorization: SECRET_MASK, "X-New": "n" } },
      { destination_url: "https://x", headers: { Authorization: "Bearer t", "X-Team": "a" } },
      http,
    );
    expect(headers.headers).toEqual({ Authorization: "Bearer t", "X-New": "n" });
  });
});

describe("masked secrets follow their target", () => {
  const stored = { host: "db", port: "5432", database: "app", credentials: { auth_type: "username/password", username: "app", password: "hunter2" } };

  it("refuses to carry a masked secret to another host, port, database or URL", () => {
    for (const change of [{ host: "attacker.example" }, { port: 6543 }, { database: "other" }]) {
      const incoming = { ...maskSecrets(stored, pg), ...change };
      expect(() => mergeMaskedSecrets(incoming, stored, pg), JSON.stringify(change)).toThrow(SecretTargetChangedError);
    }
    const hook = { destination_url: "https://hooks.example/a", headers: { Authorization: "Bearer t" }, hmac_secret: "k" };
    const moved = { ...maskSecrets(hook, http), destination_url: "https://attacker.example/a" };
    expect(() => mergeMaskedSecrets(moved, hook, http)).toThrow(/destination_url changed.*headers, hmac_secret/);
    // Turning TLS off would send the stored password in clear: it must be entered again.
    for (const name of ["Postgresql", "MariaDB", "Redshift"]) {
      const def = getDefinition(name, "source")!;
      const base = name === "MariaDB" ? { host: "db", port: 3306, database: "app", username: "app", password: "hunter2" } : stored;
      const secured = { ...base, ssl_mode: "verify-full", ...(name === "Redshift" ? { schema: "public" } : {}) };
      const downgraded = { ...maskSecrets(secured, def), ssl_mode: "disable" };
      expect(() => mergeMaskedSecrets(downgraded, secured, def), name).toThrow(/ssl_mode changed/);
    }
    const redshift = getDefinition("Redshift", "source")!;
    const byDefault = { ...stored, schema: "public" };
    expect(() => mergeMaskedSecrets({ ...maskSecrets(byDefault, redshift), ssl_mode: "disable" }, byDefault, redshift)).toThrow(/ssl_mode changed/);
    expect(mergeMaskedSecrets({ ...maskSecrets(byDefault, redshift), ssl_mode: "require" }, byDefault, redshift)).toEqual({ ...byDefault, ssl_mode: "require" });
    // A fresh value for every secret may go anywhere.
    const fresh = { destination_url: "https://attacker.example/a", headers: { Authorization: "mine" } };
    expect(mergeMaskedSecrets(fresh, hook, http)).toEqual(fresh);
  });
});

describe("validateConfiguration", () => {
  it("accepts a valid configuration, with the port as a number or a numeric string", () => {
    const base = { host: "db", database: "app", credentials: { auth_type: "username/password", username: "u", password: "p" } };
    expect(validateConfiguration(pg, { ...base, port: "5432" })).toEqual([]);
    expect(validateConfiguration(pg, { ...base, port: 5432 })).toEqual([]);
  });

  it("names each bad field", () => {
    const errors = validateConfiguration(pg, { host: "", port: "abc", credentials: { auth_type: "token" }, ssl_mode: "sometimes" });
    expect(errors).toEqual(
      expect.arrayContaining([
        { path: "database", message: "database is required" },
        { path: "credentials.username", message: "username is required" },
        { path: "credentials.auth_type", message: "must be one of: username/password" },
        { path: "host", message: "must NOT have fewer than 1 characters" },
        { path: "port", message: 'must match pattern "^[0-9]{1,5}$"' },
        { path: "ssl_mode", message: "must be one of: disable, require, verify-ca, verify-full" },
      ]),
    );
    expect(new Set(errors.map((e) => e.path))).toEqual(new Set(["database", "credentials.username", "credentials.auth_type", "host", "port", "ssl_mode"]));
  });

  it("applies conditional requirements and formats", () => {
    expect(validateConfiguration(slack, { auth_type: "webhook" })).toEqual([{ path: "webhook_url", message: "webhook_url is required" }]);
    expect(validateConfiguration(slack, { auth_type: "bot_token", bot_token: "x" })).toEqual([{ path: "channel_id", message: "channel_id is required" }]);
    expect(validateConfiguration(http, { destination_url: "not a url", headers: { A: 1 } })).toEqual(
      expect.arrayContaining([
        { path: "destination_url", message: 'must match format "uri"' },
        { path: "headers.A", message: "must be string" },
      ]),
    );
  });

  it("rejects a non-object configuration", () => {
    expect(validateConfiguration(http, "nope")).toEqual([{ path: "", message: "must be object" }]);
  });
});
