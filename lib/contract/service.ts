// Health, readiness, metrics, first-run setup, this document, and the catch-alls of unknown API paths.
import { z } from "zod";
import { dateTime, resourceSchema } from "@/lib/serializers/resource";
import { setupSchema } from "@/lib/validation/setup";
import { operation, type Method, type Operation } from "./operation";

export const service = {
  getHealth: operation({
    operationId: "getHealth",
    method: "get",
    path: "/api/health",
    tag: "Service",
    summary: "Liveness and database reachability",
    permission: "public",
    status: 200,
    response: z.strictObject({ status: z.enum(["ok", "degraded"]), database: z.enum(["up", "down"]) }),
    notes: "503 with the same body ({status: degraded, database: down}) while the database does not answer.",
  }),
  getReadiness: operation({
    operationId: "getReadiness",
    method: "get",
    path: "/api/ready",
    tag: "Service",
    summary: "Readiness: database and job queue usable",
    permission: "public",
    status: 200,
    response: z.strictObject({ status: z.enum(["ready", "not_ready"]), database: z.enum(["up", "down"]), queue: z.enum(["up", "down"]) }),
    notes: "503 with the same body (status not_ready) when not ready.",
  }),
  getMetrics: operation({
    operationId: "getMetrics",
    method: "get",
    path: "/api/metrics",
    tag: "Service",
    summary: "Prometheus metrics",
    permission: "public",
    status: 200,
    produces: { mediaType: "text/plain", description: "Prometheus text exposition format." },
    errors: [401, 503],
    notes: "Only for METRICS_TOKEN holders (Authorization: Bearer) or, without a token configured, a scraper on this machine.",
  }),
  getSetup: operation({
    operationId: "getSetup",
    method: "get",
    path: "/api/v1/setup",
    tag: "Service",
    summary: "Whether the first admin still has to be created",
    permission: "public",
    status: 200,
    response: z.strictObject({ data: z.strictObject({ needs_setup: z.boolean() }) }),
  }),
  createSetup: operation({
    operationId: "createSetup",
    method: "post",
    path: "/api/v1/setup",
    tag: "Service",
    summary: "Create the first admin (only on an empty server)",
    permission: "public",
    body: setupSchema,
    status: 201,
    response: z.strictObject({ data: resourceSchema("users", z.strictObject({ email: z.string(), name: z.string(), created_at: dateTime() })) }),
    errors: [409],
    notes: "409 once a user exists.",
  }),
  getOpenApiDocument: operation({
    operationId: "getOpenApiDocument",
    method: "get",
    path: "/api/v1/openapi.json",
    tag: "Service",
    summary: "This document",
    permission: "public",
    status: 200,
    response: z.record(z.string(), z.unknown()).describe("The OpenAPI 3.1 document."),
  }),
};

/**
 * app/api/[...path] and app/enterprise/api/[...path]: any undeclared path answers a JSON 404. Its
 * path is not parsed (the catch-all's segments are whatever came).
 */
export const unknownPath = operation({
  operationId: "unknownApiPathGet",
  method: "get",
  path: "/api/{path}",
  tag: "Service",
  summary: "Unknown API paths (not an endpoint): a JSON 404",
  permission: "public",
  status: 200,
  catchAll: true,
  notes: '404 {message, status: "not_found"} for any path under it that no endpoint declares, never an HTML page.',
});

const CATCH_ALL_METHODS: Method[] = ["get", "post", "put", "patch", "delete"];

/** The catch-alls as the document lists them: route files, declared so, but no endpoint. */
export const unknownPaths: Operation[] = CATCH_ALL_METHODS.flatMap((method) =>
  (
    [
      ["/api/{path}", "Api"],
      ["/enterprise/api/{path}", "EnterpriseApi"],
    ] as const
  ).map(([path, family]) => ({
    ...unknownPath,
    operationId: `unknown${family}Path${method[0].toUpperCase()}${method.slice(1)}`,
    method,
    path,
  })),
);
