// Models: the queries that define what a sync reads.
import { z } from "zod";
import { listSchema, paginated } from "@/lib/http/pagination";
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
    errors: [409],
    notes: "409 while a sync uses it.",
  }),
};
