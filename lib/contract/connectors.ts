// Connector definitions (the kinds this server supports), connectors and their catalogs.
import { z } from "zod";
import { listSchema, paginated } from "@/lib/http/pagination";
import { catalogRecordSchema, catalogSchema } from "@/lib/serializers/catalogs.schema";
import { connectionStatusSchema } from "@/lib/serializers/connection-status.schema";
import { connectorDefinitionSchema } from "@/lib/serializers/connector-definitions.schema";
import { connectorSchema } from "@/lib/serializers/connectors.schema";
import { dependentsSchema } from "@/lib/serializers/dependents.schema";
import { createCatalogSchema, updateCatalogSchema } from "@/lib/validation/catalogs";
import {
  checkConnectionSchema,
  connectorDefinitionParamsSchema,
  listConnectorDefinitionsQuerySchema,
  showConnectorDefinitionQuerySchema,
} from "@/lib/validation/connector-definitions";
import {
  checkConnectorSchema,
  createConnectorSchema,
  discoverConnectorQuerySchema,
  listConnectorsQuerySchema,
  querySourceSchema,
  updateConnectorSchema,
} from "@/lib/validation/connectors";
import { idParam } from "@/lib/validation/ids";
import { operation } from "./operation";

const byId = z.object({ id: idParam });

export const connectorDefinitions = {
  listConnectorDefinitions: operation({
    operationId: "listConnectorDefinitions",
    method: "get",
    path: "/api/v1/connector_definitions",
    tag: "Connector definitions",
    summary: "List connector definitions",
    permission: ["connector_definition", "read"],
    query: listConnectorDefinitionsQuerySchema,
    status: 200,
    response: z.array(connectorDefinitionSchema),
    notes: "A bare array, as the reference answers.",
  }),
  getConnectorDefinition: operation({
    operationId: "getConnectorDefinition",
    method: "get",
    path: "/api/v1/connector_definitions/{name}",
    tag: "Connector definitions",
    summary: "Show a connector definition",
    permission: ["connector_definition", "read"],
    params: connectorDefinitionParamsSchema,
    query: showConnectorDefinitionQuerySchema,
    status: 200,
    response: connectorDefinitionSchema,
    notes: "The definition as a bare object, as the reference answers.",
  }),
  checkConnection: operation({
    operationId: "checkConnection",
    method: "post",
    path: "/api/v1/connector_definitions/check_connection",
    tag: "Connector definitions",
    summary: "Check a connection configuration",
    permission: ["connector_definition", "create"],
    body: checkConnectionSchema,
    status: 200,
    response: connectionStatusSchema,
  }),
};

export const connectors = {
  listConnectors: operation({
    operationId: "listConnectors",
    method: "get",
    path: "/api/v1/connectors",
    tag: "Connectors",
    summary: "List connectors",
    permission: ["connector", "read"],
    query: paginated(listConnectorsQuerySchema),
    status: 200,
    response: listSchema(connectorSchema),
  }),
  createConnector: operation({
    operationId: "createConnector",
    method: "post",
    path: "/api/v1/connectors",
    tag: "Connectors",
    summary: "Create a connector",
    permission: ["connector", "create"],
    body: createConnectorSchema,
    status: 201,
    response: z.strictObject({ data: connectorSchema }),
  }),
  getConnector: operation({
    operationId: "getConnector",
    method: "get",
    path: "/api/v1/connectors/{id}",
    tag: "Connectors",
    summary: "Show a connector",
    permission: ["connector", "read"],
    params: byId,
    status: 200,
    response: z.strictObject({ data: connectorSchema }),
  }),
  updateConnector: operation({
    operationId: "updateConnector",
    method: "put",
    path: "/api/v1/connectors/{id}",
    tag: "Connectors",
    summary: "Update a connector",
    permission: ["connector", "update"],
    params: byId,
    body: updateConnectorSchema,
    status: 200,
    response: z.strictObject({ data: connectorSchema }),
    notes: "Masked secrets sent back keep the stored ones.",
  }),
  deleteConnector: operation({
    operationId: "deleteConnector",
    method: "delete",
    path: "/api/v1/connectors/{id}",
    tag: "Connectors",
    summary: "Delete a connector",
    permission: ["connector", "delete"],
    params: byId,
    status: 204,
    errors: [403],
    notes:
      "Deletes its catalog, its models and the syncs that use it or its models (as the reference server does); their waiting or running runs are canceled first, and syncs that ran after a deleted sync stop waiting for it. Each deletion is audit-logged. 403 when the caller may not delete those models or syncs. GET /api/v1/connectors/{id}/dependents lists what goes.",
  }),
  getConnectorDependents: operation({
    operationId: "getConnectorDependents",
    method: "get",
    path: "/api/v1/connectors/{id}/dependents",
    tag: "Connectors",
    summary: "What deleting the connector would delete with it",
    permission: ["connector", "read"],
    params: byId,
    status: 200,
    response: z.strictObject({ data: dependentsSchema }),
    notes: "may_delete and refusal say whether the caller may delete it with all of it.",
  }),
  discoverConnector: operation({
    operationId: "discoverConnector",
    method: "get",
    path: "/api/v1/connectors/{id}/discover",
    tag: "Connectors",
    summary: "The connector's streams (stored, or discovered again)",
    permission: ["connector", "read"],
    params: byId,
    query: discoverConnectorQuerySchema,
    status: 200,
    response: z.strictObject({ data: catalogSchema }),
  }),
  querySource: operation({
    operationId: "querySource",
    method: "post",
    path: "/api/v1/connectors/{id}/query_source",
    tag: "Connectors",
    summary: "Preview a query on a source",
    // Any SQL the caller writes runs with the connector's credentials: the right to write a model's
    // query, not to read the connector (a Viewer gets 403).
    permission: ["model", "create"],
    params: byId,
    body: querySourceSchema,
    status: 200,
    response: z.strictObject({
      data: z.array(z.record(z.string(), z.unknown())).describe("The first rows, column → value."),
      columns: z
        .array(z.strictObject({ name: z.string(), type: z.string() }))
        .describe("The result's columns in order, each with its type as the database names it (e.g. bigint), for type hints."),
    }),
  }),
  checkConnector: operation({
    operationId: "checkConnector",
    method: "post",
    path: "/api/v1/connectors/{id}/check",
    tag: "Connectors",
    summary: "Check a saved connector's connection",
    permission: ["connector", "read"],
    params: byId,
    body: checkConnectorSchema,
    bodyOptional: true,
    status: 200,
    response: connectionStatusSchema,
    notes: "With configuration in the body (unsaved settings; masked secrets keep the stored ones) it needs connector.update.",
  }),
};

export const catalogs = {
  createCatalog: operation({
    operationId: "createCatalog",
    method: "post",
    path: "/api/v1/catalogs",
    tag: "Catalogs",
    summary: "Create a connector's catalog",
    permission: ["connector", "create"],
    body: createCatalogSchema,
    status: 200,
    response: catalogRecordSchema,
    notes: "The bare catalog record, with an integer id.",
  }),
  updateCatalog: operation({
    operationId: "updateCatalog",
    method: "put",
    path: "/api/v1/catalogs/{id}",
    tag: "Catalogs",
    summary: "Replace a connector's catalog",
    permission: ["connector", "update"],
    params: byId,
    body: updateCatalogSchema,
    status: 200,
    response: z.strictObject({ data: catalogSchema }),
  }),
};
