"use client";
// What deleting a model or a connector takes along (GET …/dependents), read when the confirmation opens.
import { useQuery } from "@tanstack/react-query";
import type { components } from "./generated/openapi";
import { useApi } from "./provider";
import { useKey } from "./query";

export type Dependents = components["schemas"]["Dependents"]["attributes"];

export function useDependents(kind: "model" | "connector", id: string | number, enabled: boolean) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key(kind === "model" ? "models" : "connectors", "dependents", String(id)),
    queryFn: async () => {
      const path = { params: { path: { id: Number(id) } } };
      const answer = kind === "model" ? api.GET("/api/v1/models/{id}/dependents", path) : api.GET("/api/v1/connectors/{id}/dependents", path);
      return (await api.ok(answer)).data.attributes as Dependents;
    },
    enabled,
    // Always what is true now: the confirmation lists exactly what the delete takes.
    staleTime: 0,
  });
}
