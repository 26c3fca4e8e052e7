// Models: the queries that define what a sync reads.
import { z } from "zod";
import { listSchema, paginated } from "@/lib/http/pagination";
import { dependentsSchema } from "@/lib/serializers/dependents.schema";
import { modelSchema } from "@/lib/serializers/models.schema";
import { idParam } from "@/lib/validation/ids";
import { createModelSchema, listModelsQuerySchema, updateModelSchema } from "@/lib/validation/models";
import { operation } from "./operation";

const byId = z.object({ id: idParam });

export const models = {
  listModels: operation({
    operationId: "listModels",
    method: "get",
    path: "/api/v1/models",
    tag: "Models",
    summary: "List models",
    permission: ["model", "read"],
    query: paginated(listModelsQuerySchema),
    status: 200,
    response: listSchema(modelSchema),
  }),
  createModel: operation({
    operationId: "createModel",
    method: "post",
    path: "/api/v1/models",
    tag: "Models",
    summary: "Create a model",
    permission: ["model", "create"],
    body: createModelSchema,
    status: 201,
    response: z.strictObject({ data: modelSchema }),
  }),
  getModel: operation({
    operationId: "getModel",
    method: "get",
    path: "/api/v1/models/{id}",
    tag: "Models",
    summary: "Show a model",
    permission: ["model", "read"],
    params: byId,
    status: 200,
    response: z.strictObject({ data: modelSchema }),
  }),
  updateModel: operation({
    operationId: "updateModel",
    method: "put",
    path: "/api/v1/models/{id}",
    tag: "Models",
    summary: "Update a model",
    permission: ["model", "update"],
    params: byId,
    body: updateModelSchema,
    status: 200,
    response: z.strictObject({ data: modelSchema }),
  }),
  deleteModel: operation({
    operationId: "deleteModel",
    method: "delete",
    path: "/api/v1/models/{id}",
    tag: "Models",
    summary: "Delete a model",
    permission: ["model", "delete"],
    params: byId,
    status: 204,
    errors: [403],
    notes:
      "Deletes the syncs that use it too (as the reference server does); their waiting or running runs are canceled first, and syncs that ran after a deleted sync stop waiting for it. Each deletion is audit-logged. 403 when the caller may not delete those syncs. GET /api/v1/models/{id}/dependents lists what goes.",
  }),
  getModelDependents: operation({
    operationId: "getModelDependents",
    method: "get",
    path: "/api/v1/models/{id}/dependents",
    tag: "Models",
    summary: "What deleting the model would delete with it",
    permission: ["model", "read"],
    params: byId,
    status: 200,
    response: z.strictObject({ data: dependentsSchema }),
    notes: "may_delete and refusal say whether the caller may delete it with all of it.",
  }),
};
