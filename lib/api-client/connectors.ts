"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { CheckConnectionInput } from "@/lib/validation/connector-definitions";
import type { CheckConnectorInput, CreateConnectorInput, UpdateConnectorInput } from "@/lib/validation/connectors";
import type { Catalog, CatalogBody, Connector, ConnectorDefinition, ConnectorKind, ListResponse, ConnectorAttributes } from "./types";
import { useApi } from "./provider";
import { unwrap, useApiMutation, useKey } from "./query";

export interface ListParams {
  page: number;
  perPage: number;
  search?: string;
  /** `name`, `-updated_at`, … */
  sort?: string;
}

export function useConnectors(type: ConnectorKind, params: ListParams) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("connectors", type, params),
    queryFn: () =>
      api.get<ListResponse<ConnectorAttributes>>("/api/v1/connectors", {
        type,
        search: params.search,
        page: params.page,
        per_page: params.perPage,
        sort: params.sort,
      }),
    placeholderData: keepPreviousData,
  });
}

/** Every connector of a type (for pickers), up to the API's page maximum. */
export function useAllConnectors(type: ConnectorKind) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("connectors", type, "all"),
    queryFn: async () => (await api.get<ListResponse<ConnectorAttributes>>("/api/v1/connectors", { type, per_page: 100 })).data,
  });
}

export function useConnector(id: string | number | undefined) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("connectors", "one", String(id)),
    queryFn: async () => unwrap<Connector>(await api.get(`/api/v1/connectors/${id}`)),
    enabled: id !== undefined && id !== "",
  });
}

export function useDefinitions(type: ConnectorKind) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("connector_definitions", type),
    // A bare array, as the reference answers it.
    queryFn: () => api.get<ConnectorDefinition[]>("/api/v1/connector_definitions", { type }),
    staleTime: 5 * 60_000,
  });
}

export interface CheckResult {
  result: "success" | "failure";
  details: string;
}

export function useCheckConnection() {
  const api = useApi();
  return useApiMutation((input: CheckConnectionInput) => api.post<CheckResult>("/api/v1/connector_definitions/check_connection", input), {
    toastErrors: false,
  });
}

/** Tries a saved connector (POST /connectors/{id}/check), optionally with unsaved settings whose masked secrets keep the stored ones. */
export function useCheckConnector(id: string) {
  const api = useApi();
  return useApiMutation((input: CheckConnectorInput) => api.post<CheckResult>(`/api/v1/connectors/${id}/check`, input), {
    toastErrors: false,
  });
}

export function useCreateConnector() {
  const api = useApi();
  return useApiMutation(
    async (connector: CreateConnectorInput) => unwrap<Connector>(await api.post("/api/v1/connectors", { connector })),
    { success: (c) => `${c.attributes.connector_type === "source" ? "Source" : "Destination"} "${c.attributes.name}" created.`, invalidate: [["connectors"]], toastErrors: false },
  );
}

export function useUpdateConnector(id: string) {
  const api = useApi();
  return useApiMutation(
    async (connector: UpdateConnectorInput) => unwrap<Connector>(await api.put(`/api/v1/connectors/${id}`, { connector })),
    { success: (c) => `"${c.attributes.name}" saved.`, invalidate: [["connectors"]], toastErrors: false },
  );
}

export function useDeleteConnector() {
  const api = useApi();
  return useApiMutation((c: Connector) => api.delete(`/api/v1/connectors/${c.id}`), {
    success: (_r, c) => `"${c.attributes.name}" deleted.`,
    invalidate: [["connectors"]],
  });
}

function normaliseCatalog(body: unknown): Catalog | null {
  const c = unwrap<Catalog | { id: number; connector_id: number; workspace_id: number; catalog: CatalogBody }>(body);
  if (!c) return null;
  if ("attributes" in c) return c;
  return { id: String(c.id), type: "catalogs", attributes: { connector_id: c.connector_id, workspace_id: c.workspace_id, catalog: c.catalog } };
}

export function useDiscover(connectorId: string | number | undefined, options: { enabled?: boolean } = {}) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("connectors", "discover", String(connectorId)),
    queryFn: async () => normaliseCatalog(await api.get(`/api/v1/connectors/${connectorId}/discover`)),
    enabled: connectorId !== undefined && connectorId !== "" && options.enabled !== false,
  });
}

export function useRefreshDiscover(connectorId: string) {
  const api = useApi();
  return useApiMutation(async () => normaliseCatalog(await api.get(`/api/v1/connectors/${connectorId}/discover`, { refresh: true })), {
    success: "Streams discovered again.",
    invalidate: [["connectors", "discover", connectorId]],
  });
}

export function useSaveCatalog(connectorId: string) {
  const api = useApi();
  return useApiMutation(
    async ({ catalogId, catalog }: { catalogId?: string; catalog: CatalogBody }) => {
      const body = { connector_id: Number(connectorId), catalog };
      return catalogId ? api.put(`/api/v1/catalogs/${catalogId}`, body) : api.post("/api/v1/catalogs", body);
    },
    { success: "Catalog saved.", invalidate: [["connectors", "discover", connectorId]] },
  );
}

/** Preview rows of a query on a source connector (POST /connectors/{id}/query_source). */
export function useQuerySource() {
  const api = useApi();
  return useApiMutation(
    async ({ connectorId, ...input }: { connectorId: string | number; query: string; limit?: number }) => {
      const body = await api.post<{ data: Record<string, unknown>[] }>(`/api/v1/connectors/${connectorId}/query_source`, input);
      return body.data ?? [];
    },
    { toastErrors: false },
  );
}
