import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ENDPOINTS, pathKey } from "@/e2e/support/endpoints";
import { OPERATIONS, openApiDocument } from "./document";

const ROOT = path.resolve(__dirname, "../..");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Every exported method of every route file under app/api and app/enterprise/api. */
function routes(): { key: string; file: string }[] {
  const out: { key: string; file: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === "route.ts") {
        const source = readFileSync(full, "utf8");
        const url = "/" + path.relative(path.join(ROOT, "app"), path.dirname(full)).split(path.sep).join("/");
        for (const m of METHODS) {
          if (
            new RegExp(`export (const ${m} =|async function ${m}\\b)|export \\{[^}]*\\bas ${m}\\b`).test(
              source,
            )
          ) {
            out.push({
              key: `${m.toLowerCase()} ${pathKey(url.replace(/\[(?:\.\.\.)?[^\]]+\]/g, "{x}"))}`,
              file: path.relative(ROOT, full),
            });
          }
        }
      }
    }
  };
  walk(path.join(ROOT, "app/api"));
  walk(path.join(ROOT, "app/enterprise/api"));
  return out;
}

type Doc = ReturnType<typeof openApiDocument> & {
  paths: Record<string, Record<string, Record<string, unknown>>>;
};

describe("OpenAPI document", () => {
  const doc = openApiDocument() as Doc;

  it("is OpenAPI 3.1.0 with info, tags and the bearer scheme", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info).toMatchObject({ title: expect.any(String), version: "1.0.0" });
    expect(doc.components?.securitySchemes?.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    const tags = new Set((doc.tags ?? []).map((t) => t.name));
    for (const op of OPERATIONS) expect(tags.has(op.tag), op.tag).toBe(true);
  });

  it("lists every route file and method, and nothing that does not exist", () => {
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m} ${pathKey(p)}`)),
    );
    const files = routes();
    expect(files.length).toBeGreaterThan(40);
    expect(files.filter((r) => !documented.has(r.key)).map((r) => `${r.key} (${r.file})`)).toEqual([]);
    const onDisk = new Set(files.map((r) => r.key));
    expect([...documented].filter((k) => !onDisk.has(k))).toEqual([]);
  });

  it("gives every operation an id, summary, tag, permission, success response and declared path params", () => {
    const ids = new Set<string>();
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const o = op as {
          operationId: string;
          summary: string;
          tags: string[];
          responses: Record<string, { description: string }>;
          parameters?: { name: string; in: string; required?: boolean }[];
          "x-permission"?: string;
        };
        expect(ids.has(o.operationId), `duplicate ${o.operationId}`).toBe(false);
        ids.add(o.operationId);
        expect(o.summary.length, `${method} ${p}`).toBeGreaterThan(5);
        expect(o.tags).toHaveLength(1);
        expect(o["x-permission"], `${method} ${p}`).toMatch(
          /^(public|member|user|[a-z_]+\.(create|read|update|delete))$/,
        );
        const success = Object.keys(o.responses).filter((s) => s.startsWith("2"));
        // The catch-all of unknown API paths is a route file but no endpoint: it only ever answers 404.
        if ((o as { "x-not-an-endpoint"?: boolean })["x-not-an-endpoint"]) {
          expect(Object.keys(o.responses), `${method} ${p}`).toEqual(["404"]);
        } else {
          expect(success, `${method} ${p}`).toHaveLength(1);
          expect(o.responses[success[0]].description.length).toBeGreaterThan(2);
        }
        const pathParams = (o.parameters ?? []).filter((x) => x.in === "path").map((x) => x.name);
        expect(pathParams.sort()).toEqual([...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort());
      }
    }
  });

  it("carries request bodies and query parameters from the zod schemas, with their descriptions", () => {
    const create = doc.paths["/api/v1/api_tokens"].post as {
      requestBody: {
        content: Record<
          string,
          { schema: { properties: Record<string, { properties: Record<string, { description?: string }> }> } }
        >;
      };
    };
    const fields = create.requestBody.content["application/json"].schema.properties.api_token.properties;
    expect(Object.keys(fields).sort()).toEqual(["expires_at", "name", "role_id"]);
    expect(fields.name.description).toMatch(/What the token is for/);
    const reports = doc.paths["/api/v1/reports"].get as {
      parameters: { name: string; in: string; schema: { enum?: string[] } }[];
    };
    const metric = reports.parameters.find((x) => x.name === "metric")!;
    expect(metric.schema.enum).toEqual(["sync_run_triggered", "total_sync_run_rows", "all"]);
    expect(reports.parameters.find((x) => x.name === "time_period")?.in).toBe("query");
  });

  it("resolves every $ref", () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      const [, , kind, name] = ref.slice(8, -1).split("/");
      expect((doc.components as Record<string, Record<string, unknown>>)[kind]?.[name], ref).toBeDefined();
    }
  });

  it("agrees with the permission table the matrix test walks (e2e/support/endpoints.ts)", () => {
    const table = new Map(ENDPOINTS.map((e) => [`${e.method.toLowerCase()} ${pathKey(e.path)}`, e]));
    const disagreements = OPERATIONS.filter((op) => {
      const e = table.get(`${op.method} ${pathKey(op.path)}`);
      return (
        !e ||
        JSON.stringify(e.permission) !== JSON.stringify(op.permission) ||
        Boolean(e.checkedInPath) !== Boolean(op.inPathWorkspace)
      );
    }).map((op) => `${op.method} ${op.path}`);
    expect(disagreements).toEqual([]);
  });
});
