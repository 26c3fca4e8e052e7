"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { CreateModelInput, UpdateModelInput } from "@/lib/validation/models";
import type { Model } from "./types";
import { useApi } from "./provider";
import { useApiMutation, useKey } from "./query";

export function useModels(params: { page: number; perPage: number; connectorId?: string | number }) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("models", params),
    queryFn: async () => {
      return api.ok(
        api.GET("/api/v1/models", {
          params: {
            query: {
              page: params.page,
              per_page: params.perPage,
              connector_id: params.connectorId === undefined || params.connectorId === "" ? undefined : Number(params.connectorId),
            },
          },
        }),
      );
    },
    placeholderData: keepPreviousData,
  });
}

export function useModel(id: string | number | undefined) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("models", "one", String(id)),
    queryFn: async () => (await api.ok(api.GET("/api/v1/models/{id}", { params: { path: { id: Number(id) } } }))).data,
    enabled: id !== undefined && id !== "",
  });
}

export function useCreateModel() {
  const api = useApi();
  return useApiMutation(async (model: CreateModelInput) => (await api.ok(api.POST("/api/v1/models", { body: { model } }))).data, {
    success: (m) => `Model "${m.attributes.name}" created.`,
    invalidate: [["models"]],
    toastErrors: false,
  });
}

export function useUpdateModel(id: string) {
  const api = useApi();
  const update = (model: UpdateModelInput) =>
    api.ok(api.PUT("/api/v1/models/{id}", { params: { path: { id: Number(id) } }, body: { model } }));
  return useApiMutation(async (model: UpdateModelInput) => (await update(model)).data, {
    success: (m) => `Model "${m.attributes.name}" saved.`,
    invalidate: [["models"]],
    toastErrors: false,
  });
}

export function useDeleteModel() {
  const api = useApi();
  return useApiMutation((m: Model) => api.ok(api.DELETE("/api/v1/models/{id}", { params: { path: { id: Number(m.id) } } })), {
    success: (_r, m) => `Model "${m.attributes.name}" deleted.`,
    staleOnly: true,
    invalidate: [["models"], ["syncs"]],
  });
}
