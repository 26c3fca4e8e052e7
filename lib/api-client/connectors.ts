"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { CheckConnectionInput } from "@/lib/validation/connector-definitions";
import type { CheckConnectorInput, CreateConnectorInput, UpdateConnectorInput } from "@/lib/validation/connectors";
import type { CatalogBody, ConnectionStatus, Connector, ConnectorKind } from "./types";
import { useApi } from "./provider";
import { useApiMutation, useKey } from "./query";

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
      api.ok(
        api.GET("/api/v1/connectors", {
          params: { query: { type, search: params.search, page: params.page, per_page: params.perPage, sort: params.sort } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

/** Every connector of a type (for pickers), up to the API's page maximum. */
export function useAllConnectors(type: ConnectorKind) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("connectors", type, "all"),
    queryFn: async () =>
      (await api.ok(api.GET("/api/v1/connectors", { params: { query: { type, per_page: 100 } } }))).data,
  });
}

export function useConnector(id: string | number | undefined) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("connectors", "one", String(id)),
    queryFn: async () => (await api.ok(api.GET("/api/v1/connectors/{id}", { params: { path: { id: Number(id) } } }))).data,
    enabled: id !== undefined && id !== "",
  });
}

export function useDefinitions(type: ConnectorKind) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("connector_definitions", type),
    // A bare array, as the reference answers it.
    queryFn: () => api.ok(api.GET("/api/v1/connector_definitions", { params: { query: { type } } })),
    staleTime: 5 * 60_000,
  });
}

export type CheckResult = ConnectionStatus;

export function useCheckConnection() {
  const api = useApi();
  return useApiMutation(
    (input: CheckConnectionInput) => api.ok(api.POST("/api/v1/connector_definitions/check_connection", { body: input })),
    { toastErrors: false },
  );
}

/** Tries a saved connector (POST /connectors/{id}/check), optionally with unsaved settings whose masked secrets keep the stored ones. */
export function useCheckConnector(id: string) {
  const api = useApi();
  return useApiMutation(
    (input: CheckConnectorInput) =>
      api.ok(api.POST("/api/v1/connectors/{id}/check", { params: { path: { id: Number(id) } }, body: input })),
    { toastErrors: false },
  );
}

export function useCreateConnector() {
  const api = useApi();
  return useApiMutation(
    async (connector: CreateConnectorInput) => (await api.ok(api.POST("/api/v1/connectors", { body: { connector } }))).data,
    { success: (c) => `${c.attributes.connector_type === "source" ? "Source" : "Destination"} "${c.attributes.name}" created.`, invalidate: [["connectors"]], toastErrors: false },
  );
}

export function useUpdateConnector(id: string) {
  const api = useApi();
  return useApiMutation(
    async (connector: UpdateConnectorInput) =>
      (await api.ok(api.PUT("/api/v1/connectors/{id}", { params: { path: { id: Number(id) } }, body: { connector } }))).data,
    { success: (c) => `"${c.attributes.name}" saved.`, invalidate: [["connectors"]], toastErrors: false },
  );
}

export function useDeleteConnector() {
  const api = useApi();
  return useApiMutation((c: Connector) => api.ok(api.DELETE("/api/v1/connectors/{id}", { params: { path: { id: Number(c.id) } } })), {
    success: (_r, c) => `"${c.attributes.name}" deleted.`,
    staleOnly: true,
    invalidate: [["connectors"], ["models"], ["syncs"]],
  });
}

export function useDiscover(connectorId: string | number | undefined, options: { enabled?: boolean } = {}) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("connectors", "discover", String(connectorId)),
    queryFn: async () =>
      (await api.ok(api.GET("/api/v1/connectors/{id}/discover", { params: { path: { id: Number(connectorId) } } }))).data,
    enabled: connectorId !== undefined && connectorId !== "" && options.enabled !== false,
  });
}

export function useRefreshDiscover(connectorId: string) {
  const api = useApi();
  const discover = () =>
    api.ok(api.GET("/api/v1/connectors/{id}/discover", { params: { path: { id: Number(connectorId) }, query: { refresh: "true" } } }));
  return useApiMutation(async () => (await discover()).data, {
    success: "Streams discovered again.",
    invalidate: [["connectors", "discover", connectorId]],
  });
}

export function useSaveCatalog(connectorId: string) {
  const api = useApi();
  return useApiMutation(
    async ({ catalogId, catalog }: { catalogId?: string; catalog: CatalogBody }) => {
      const body = { connector_id: Number(connectorId), catalog };
      return catalogId
        ? api.ok(api.PUT("/api/v1/catalogs/{id}", { params: { path: { id: Number(catalogId) } }, body }))
        : api.ok(api.POST("/api/v1/catalogs", { body }));
    },
    { success: "Catalog saved.", invalidate: [["connectors", "discover", connectorId]] },
  );
}

/** Preview rows of a query on a source connector (POST /connectors/{id}/query_source). */
export function useQuerySource() {
  const api = useApi();
  return useApiMutation(
    async ({ connectorId, ...input }: { connectorId: string | number; query: string; limit?: number }) => {
      const body = await api.ok(api.POST("/api/v1/connectors/{id}/query_source", { params: { path: { id: Number(connectorId) } }, body: input }));
      return body.data ?? [];
    },
    { toastErrors: false },
  );
}

/** The model's sample rows with its columns' real types (as the database names them, e.g. bigint). */
export function useSampleRows() {
  const api = useApi();
  return useApiMutation(
    async ({ connectorId, ...input }: { connectorId: string | number; query: string; limit?: number }) => {
      const body = await api.ok(api.POST("/api/v1/connectors/{id}/query_source", { params: { path: { id: Number(connectorId) } }, body: input }));
      return { rows: body.data ?? [], columns: body.columns ?? [] };
    },
    { toastErrors: false },
  );
}
