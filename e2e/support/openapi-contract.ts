// Checks live answers against the OpenAPI document: every response that goes through a client made
// here is matched to its operation (openapi-fetch hands the middleware the path template) and its
// status, content type and body are validated with ajv against what the document declares for it.
import { readFileSync } from "node:fs";
import path from "node:path";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { operations, paths } from "../../lib/api-client/generated/openapi";
import { BASE_URL } from "./api";

export type OperationId = keyof operations;
export type ApiClient = Client<paths>;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface MediaObject {
  schema?: Json;
}
interface ResponseObject {
  content?: Record<string, MediaObject>;
}
interface OperationObject {
  operationId: string;
  security?: unknown[];
  responses: Record<string, ResponseObject>;
  "x-not-an-endpoint"?: boolean;
}
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OperationObject>>;
}

export interface DocumentOperation extends OperationObject {
  method: string;
  path: string;
}

/** What the generated client was built from (npm run openapi:generate). */
export function generatedDocument(): OpenApiDocument {
  const file = path.resolve("lib/api-client/generated/openapi.json");
  try {
    return JSON.parse(readFileSync(file, "utf8")) as OpenApiDocument;
  } catch {
    throw new Error(`${file} is missing: run \`npm run openapi:generate\` (npm install does it).`);
  }
}

export function documentOperations(doc: OpenApiDocument): DocumentOperation[] {
  return Object.entries(doc.paths).flatMap(([p, item]) =>
    Object.entries(item).map(([method, op]) => ({ ...op, method, path: p })),
  );
}

/** The success statuses an operation declares. */
export const successStatuses = (op: OperationObject): string[] =>
  Object.keys(op.responses).filter((s) => /^2\d\d$/.test(s));

/** One answer as the contract saw it. */
export interface Observation {
  operationId: string;
  method: string;
  status: number;
  /** Why the answer breaks the document; empty when it matches. */
  problems: string[];
  /** The body was not validated: the document declares no schema for it yet (PENDING list). */
  unchecked?: boolean;
}

// A JSON pointer segment inside a URI fragment.
const segment = (s: string) => encodeURIComponent(s.replace(/~/g, "~0").replace(/\//g, "~1"));
const mediaType = (header: string | null) => (header ?? "").split(";")[0].trim().toLowerCase();

export class ContractChecker {
  readonly observations: Observation[] = [];
  private readonly ajv: Ajv2020;

  constructor(
    private readonly doc: OpenApiDocument,
    /** Operations whose success body has no schema in the document yet: their bodies are not validated. */
    private readonly pending: ReadonlySet<string>,
    /** Statuses an operation answers that the document does not declare yet, by operation. */
    private readonly undeclared: Readonly<Record<string, readonly number[]>> = {},
  ) {
    // OpenAPI 3.1 schemas are JSON Schema draft 2020-12; the document's own keys (paths, info, …)
    // are not schema keywords, hence strict: false.
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema(doc as object, "openapi.json");
  }

  /** Validates one answer of `method` on the path template `schemaPath` and records it. */
  async check(method: string, schemaPath: string, response: Response): Promise<Observation> {
    const lower = method.toLowerCase();
    const op = this.doc.paths[schemaPath]?.[lower];
    const status = response.status;
    const seen: Observation = {
      operationId: op?.operationId ?? `${method} ${schemaPath}`,
      method,
      status,
      problems: [],
    };
    this.observations.push(seen);
    if (!op) {
      seen.problems.push(`${method} ${schemaPath} is no operation of the document`);
      return seen;
    }
    const where = `${op.operationId} ${status}`;
    const declared = op.responses[String(status)];
    const text = await response.text();
    if (!declared && this.undeclared[op.operationId]?.includes(status)) {
      seen.unchecked = true;
      return seen;
    }
    if (!declared) {
      seen.problems.push(
        `${where}: status ${status} is not declared (declared: ${Object.keys(op.responses).join(", ")}); body ${text.slice(0, 300)}`,
      );
      return seen;
    }
    const type = mediaType(response.headers.get("content-type"));
    if (!declared.content) {
      if (text.length === 0) return seen;
      if (this.pending.has(op.operationId) && /^2/.test(String(status))) {
        seen.unchecked = true;
        return seen;
      }
      seen.problems.push(`${where}: a ${type || "typeless"} body came, the document declares none`);
      return seen;
    }
    const media = declared.content[type];
    if (!media) {
      seen.problems.push(
        `${where}: content type "${type}" is not declared (${Object.keys(declared.content).join(", ")})`,
      );
      return seen;
    }
    if (media.schema === undefined) return seen;
    let body: unknown = text;
    if (type.endsWith("json")) {
      try {
        body = JSON.parse(text);
      } catch {
        seen.problems.push(`${where}: the body is not JSON: ${text.slice(0, 200)}`);
        return seen;
      }
    }
    const pointer = ["paths", schemaPath, lower, "responses", String(status), "content", type, "schema"]
      .map(segment)
      .join("/");
    const validate = this.ajv.getSchema(`openapi.json#/${pointer}`);
    if (!validate) {
      seen.problems.push(`${where}: ajv found no schema at ${pointer}`);
      return seen;
    }
    if (!validate(body)) {
      for (const e of validate.errors ?? []) {
        seen.problems.push(
          `${where}: ${e.instancePath || "(body)"} ${e.message ?? "is invalid"} ${JSON.stringify(e.params)}`,
        );
      }
      seen.problems.push(`${where}: body was ${JSON.stringify(body).slice(0, 600)}`);
    }
    return seen;
  }

  /** openapi-fetch middleware: every answer of a client using it is checked. */
  readonly middleware: Middleware = {
    onResponse: async ({ request, response, schemaPath }) => {
      await this.check(request.method, schemaPath, response.clone());
    },
  };
}

export interface Caller {
  token?: string;
  workspaceId?: number;
  /** The test servers trust X-Forwarded-For: one address per caller keeps throttles apart. */
  forwardedFor?: string;
}

/** The generated client, as a program uses it (bearer token, Workspace-Id), checked by `checker`. */
export function contractClient(checker: ContractChecker, caller: Caller = {}): ApiClient {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (caller.token) headers.Authorization = `Bearer ${caller.token}`;
  if (caller.workspaceId) headers["Workspace-Id"] = String(caller.workspaceId);
  if (caller.forwardedFor) headers["X-Forwarded-For"] = caller.forwardedFor;
  // Redirects are answers too (next-auth): keep them instead of following them to a page.
  const client = createClient<paths>({ baseUrl: BASE_URL, headers, redirect: "manual" });
  client.use(checker.middleware);
  return client;
}
