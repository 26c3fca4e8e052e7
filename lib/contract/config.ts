// Configuration as code: the workspace's connectors, models and syncs as one YAML document
// (docs/config-as-code.md). Permissions are checked per kind by the service: export needs read of
// each kind it writes, plan and apply need create, update or delete of each kind they change.
import { configDocumentSchema, configPlanSchema, exportConfigQuerySchema } from "@/lib/validation/config";
import { operation } from "./operation";

const BODY_NOTES =
  "The body is the document as YAML (Content-Type application/yaml or text/yaml) or JSON; `secrets` carries the values of its ${env:NAME} references (the CLI resolves them from its environment; the server never reads its own). 403 names every kind the role may not change; 422 names the entry and field at fault.";

export const config = {
  exportConfig: operation({
    operationId: "exportConfig",
    method: "get",
    path: "/api/v1/config/export",
    tag: "Configuration",
    summary: "Export the workspace's connectors, models and syncs as YAML",
    notes: "Needs read of each kind exported (403 otherwise). Secrets are written as ${env:NAME} references, never as values.",
    permission: "member",
    query: exportConfigQuerySchema,
    status: 200,
    produces: { mediaType: "application/yaml", description: "The configuration document (docs/config-as-code.md)." },
    errors: [403],
  }),
  planConfig: operation({
    operationId: "planConfig",
    method: "post",
    path: "/api/v1/config/plan",
    tag: "Configuration",
    summary: "What applying a configuration document would change",
    notes: `Nothing is written: the changes are made and checked in a transaction that is rolled back. ${BODY_NOTES}`,
    permission: "member",
    body: configDocumentSchema,
    yamlBody: true,
    status: 200,
    response: configPlanSchema,
    errors: [403, 409, 424],
  }),
  applyConfig: operation({
    operationId: "applyConfig",
    method: "post",
    path: "/api/v1/config/apply",
    tag: "Configuration",
    summary: "Apply a configuration document in one transaction",
    notes: `All changes or none: any error leaves the workspace as it was. Deletes only with prune: true. Audit-logged (action apply, resource config). ${BODY_NOTES}`,
    permission: "member",
    body: configDocumentSchema,
    yamlBody: true,
    status: 200,
    response: configPlanSchema,
    errors: [403, 409, 424],
  }),
};
