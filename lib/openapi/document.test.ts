import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { ENDPOINTS, pathKey, UNKNOWN_FLAGGED } from "@/e2e/support/endpoints";
import { OPERATIONS, TAGS } from "@/lib/contract";
import { openApiDocument } from "./document";

const ROOT = path.resolve(__dirname, "../..");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

interface RouteExport {
  /** `get {}/api/v1/syncs/{}`-style key of the folder and method. */
  key: string;
  file: string;
  /** The declaration a `route(group.operationId, …)` export names; absent for plain handlers. */
  operationId?: string;
}

/** Every exported method of every route file under app/api and app/enterprise/api. */
function routes(): RouteExport[] {
  const out: RouteExport[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === "route.ts") {
        const source = readFileSync(full, "utf8");
        const url = "/" + path.relative(path.join(ROOT, "app"), path.dirname(full)).split(path.sep).join("/");
        for (const m of METHODS) {
          if (!new RegExp(`export (const ${m} =|async function ${m}\\b)|export \\{[^}]*\\bas ${m}\\b`).test(source)) continue;
          out.push({
            key: `${m.toLowerCase()} ${pathKey(url.replace(/\[(?:\.\.\.)?[^\]]+\]/g, "{x}"))}`,
            file: path.relative(ROOT, full),
            operationId: new RegExp(`export const ${m} = route\\(\\s*\\w+\\.(\\w+)\\b`).exec(source)?.[1],
          });
        }
      }
    }
  };
  walk(path.join(ROOT, "app/api"));
  walk(path.join(ROOT, "app/enterprise/api"));
  return out;
}

const keyOf = (op: { method: string; path: string }) => `${op.method.toLowerCase()} ${pathKey(op.path)}`;

type Doc = ReturnType<typeof openApiDocument> & {
  paths: Record<string, Record<string, Record<string, unknown>>>;
};

describe("operation declarations", () => {
  it("cover every route file and method, and nothing that does not exist", () => {
    const declared = new Set(OPERATIONS.map(keyOf));
    const files = routes();
    expect(files.length).toBeGreaterThan(40);
    expect(files.filter((r) => !declared.has(r.key)).map((r) => `${r.key} (${r.file})`)).toEqual([]);
    const onDisk = new Set(files.map((r) => r.key));
    expect(OPERATIONS.filter((op) => !onDisk.has(keyOf(op))).map(keyOf)).toEqual([]);
  });

  it("are the ones the route files use, for their own method and path", () => {
    const byId = new Map(OPERATIONS.map((op) => [op.operationId, op]));
    const wrong = routes()
      .filter((r) => r.operationId !== undefined)
      .filter((r) => {
        const op = byId.get(r.operationId!);
        return !op || keyOf(op) !== r.key;
      })
      .map((r) => `${r.file}: ${r.key} uses ${r.operationId}`);
    expect(wrong).toEqual([]);
    // Only the plain handlers outside the wrapper (service probes, next-auth, the catch-alls) go without.
    const plain = new Set(routes().filter((r) => r.operationId === undefined).map((r) => r.file));
    expect([...plain].sort()).toEqual([
      "app/api/[...path]/route.ts",
      "app/api/auth/[...nextauth]/route.ts",
      "app/api/health/route.ts",
      "app/api/metrics/route.ts",
      "app/api/ready/route.ts",
      "app/enterprise/api/[...path]/route.ts",
    ]);
  });

  it("have unique operation ids, and a response schema for every JSON success", () => {
    expect(new Set(OPERATIONS.map((op) => op.operationId)).size).toBe(OPERATIONS.length);
    const withoutSchema = OPERATIONS.filter((op) => !op.catchAll && op.status !== 204 && !op.response && !op.produces);
    expect(withoutSchema.map((op) => op.operationId)).toEqual([]);
  });

  it("are what the permission matrix walks (e2e/support/endpoints.ts)", () => {
    expect(UNKNOWN_FLAGGED).toEqual([]);
    expect(ENDPOINTS.map((e) => e.operationId)).toEqual(OPERATIONS.map((op) => op.operationId));
  });
});

describe("OpenAPI document", () => {
  const doc = openApiDocument() as Doc;

  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const plain: Record<string, unknown> = JSON.parse(JSON.stringify(doc));
    const result = await validator.validate(plain);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("is OpenAPI 3.1.0 with info, tags and the bearer scheme", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info).toMatchObject({ title: expect.any(String), version: "1.0.0" });
    expect(doc.components?.securitySchemes?.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect((doc.tags ?? []).map((t) => t.name)).toEqual(TAGS.map((t) => t.name));
  });

  it("lists every declared operation", () => {
    const documented = Object.entries(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m} ${pathKey(p)}`));
    expect(documented.sort()).toEqual(OPERATIONS.map(keyOf).sort());
  });

  it("gives every operation an id, summary, tag, permission, success response and declared path params", () => {
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const o = op as {
          summary: string;
          tags: string[];
          responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
          parameters?: { name: string; in: string; required?: boolean }[];
          "x-permission"?: string;
          "x-not-an-endpoint"?: boolean;
        };
        expect(o.summary.length, `${method} ${p}`).toBeGreaterThan(5);
        expect(o.tags).toHaveLength(1);
        expect(o["x-permission"], `${method} ${p}`).toMatch(/^(public|member|user|[a-z_]+\.(create|read|update|delete))$/);
        const success = Object.keys(o.responses).filter((s) => s.startsWith("2"));
        // The catch-all of unknown API paths is a route file but no endpoint: it only ever answers 404.
        if (o["x-not-an-endpoint"]) expect(Object.keys(o.responses), `${method} ${p}`).toEqual(["404"]);
        else {
          expect(success, `${method} ${p}`).toHaveLength(1);
          if (success[0] !== "204") expect(o.responses[success[0]].content, `${method} ${p}`).toBeDefined();
        }
        // Errors carry the one error body; a 302 (next-auth's redirect) carries only its Location.
        for (const [code, response] of Object.entries(o.responses).filter(([s]) => !s.startsWith("2") && s !== "302")) {
          expect(response.content?.["application/json"]?.schema, `${method} ${p} ${code}`).toEqual({ $ref: "#/components/schemas/Error" });
        }
        const pathParams = (o.parameters ?? []).filter((x) => x.in === "path").map((x) => x.name);
        expect(pathParams.sort()).toEqual([...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort());
      }
    }
  });

  it("carries request bodies and query parameters from the zod schemas, with their descriptions", () => {
    const create = doc.paths["/api/v1/api_tokens"].post as {
      requestBody: {
        content: Record<string, { schema: { properties: Record<string, { properties: Record<string, { description?: string }> }> } }>;
      };
    };
    const fields = create.requestBody.content["application/json"].schema.properties.api_token.properties;
    expect(Object.keys(fields).sort()).toEqual(["expires_at", "name", "role_id"]);
    expect(fields.name.description).toMatch(/What the token is for/);
    const reports = doc.paths["/api/v1/reports"].get as { parameters: { name: string; in: string; schema: { enum?: string[] } }[] };
    const metric = reports.parameters.find((x) => x.name === "metric")!;
    expect(metric.schema.enum).toEqual(["sync_run_triggered", "total_sync_run_rows", "all"]);
    expect(reports.parameters.find((x) => x.name === "time_period")?.in).toBe("query");
  });

  it("describes paging on every list and on nothing else", () => {
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const o = op as { parameters?: { name: string; in: string; schema: { type?: string } }[]; responses: Record<string, unknown> };
        const page = o.parameters?.find((x) => x.in === "query" && x.name === "page");
        const isList = JSON.stringify(o.responses["200"] ?? {}).includes("#/components/schemas/PageLinks");
        expect(Boolean(page), `${method} ${p}`).toBe(isList);
        if (page) {
          expect(page.schema.type).toBe("integer");
          expect(o.parameters?.some((x) => x.name === "per_page")).toBe(true);
        }
      }
    }
  });

  it("refers to the shared response schemas by name", () => {
    const schemas = doc.components?.schemas ?? {};
    for (const name of ["Error", "ErrorItem", "Sync", "SyncRun", "SyncRecord", "Connector", "Model", "Workspace", "Member", "Role", "PageLinks"]) {
      expect(schemas[name], name).toBeDefined();
    }
    const sync = schemas.Sync as { properties: { attributes: { properties: Record<string, { type?: unknown }> } } };
    expect(sync.properties.attributes.properties.cron_expression.type).toEqual(["string", "null"]);
  });

  it("resolves every $ref", () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      const [, , kind, name] = ref.slice(8, -1).split("/");
      expect((doc.components as Record<string, Record<string, unknown>>)[kind]?.[name], ref).toBeDefined();
    }
  });
});
