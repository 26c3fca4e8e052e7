"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { CreateModelInput, UpdateModelInput } from "@/lib/validation/models";
import type { ListResponse, Model, ModelAttributes } from "./types";
import { useApi } from "./provider";
import { unwrap, useApiMutation, useKey } from "./query";

export function useModels(params: { page: number; perPage: number; connectorId?: string | number }) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("models", params),
    queryFn: () =>
      api.get<ListResponse<ModelAttributes>>("/api/v1/models", {
        page: params.page,
        per_page: params.perPage,
        connector_id: params.connectorId,
      }),
    placeholderData: keepPreviousData,
  });
}

export function useModel(id: string | number | undefined) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("models", "one", String(id)),
    queryFn: async () => unwrap<Model>(await api.get(`/api/v1/models/${id}`)),
    enabled: id !== undefined && id !== "",
  });
}

export function useCreateModel() {
  const api = useApi();
  return useApiMutation(async (model: CreateModelInput) => unwrap<Model>(await api.post("/api/v1/models", { model })), {
    success: (m) => `Model "${m.attributes.name}" created.`,
    invalidate: [["models"]],
    toastErrors: false,
  });
}

export function useUpdateModel(id: string) {
  const api = useApi();
  return useApiMutation(async (model: UpdateModelInput) => unwrap<Model>(await api.put(`/api/v1/models/${id}`, { model })), {
    success: (m) => `Model "${m.attributes.name}" saved.`,
    invalidate: [["models"]],
    toastErrors: false,
  });
}

export function useDeleteModel() {
  const api = useApi();
  return useApiMutation((m: Model) => api.delete(`/api/v1/models/${m.id}`), {
    success: (_r, m) => `Model "${m.attributes.name}" deleted.`,
    invalidate: [["models"]],
  });
}
