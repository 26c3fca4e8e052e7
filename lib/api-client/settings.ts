"use client";
// The signed-in user, workspaces, members, roles and API tokens.
import { useQuery } from "@tanstack/react-query";
import type { CreateApiTokenInput } from "@/lib/validation/api-tokens";
import type { ChangePasswordInput } from "@/lib/validation/auth";
import type { CreateMemberInput } from "@/lib/validation/members";
import type { CreateRoleInput, UpdateRoleInput } from "@/lib/validation/roles";
import type { ListResponse, Policies, Resource, Role } from "./types";
import { useApi } from "./provider";
import { unwrap, useApiMutation, useKey } from "./query";

export interface MeAttributes {
  email: string;
  name: string;
  workspace_id: number;
  token_kind?: string;
  role: { id: number; role_name: string; policies: Policies };
  workspaces: { id: number; name: string; role_name: string }[];
}
export type Me = Resource<MeAttributes>;

export function useMe() {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("me"),
    queryFn: async () => unwrap<Me>(await api.get("/api/v1/users/me")),
    staleTime: 60_000,
  });
}

/** Whether the signed-in user's role allows an action here; false until known. */
export function useCan(resource: string, action: "create" | "read" | "update" | "delete"): boolean {
  const me = useMe();
  return me.data?.attributes.role?.policies?.permissions?.[resource]?.[action] === true;
}

export function useRoles() {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("roles"),
    queryFn: async () => (await api.get<{ data: Role[] }>("/enterprise/api/v1/roles")).data,
  });
}

export function useCreateRole() {
  const api = useApi();
  return useApiMutation(async (role: CreateRoleInput) => unwrap<Role>(await api.post("/enterprise/api/v1/roles", { role })), {
    success: (r) => `Role "${r.attributes.role_name}" created.`,
    invalidate: [["roles"]],
  });
}

export function useUpdateRole() {
  const api = useApi();
  return useApiMutation(
    async ({ id, role }: { id: string; role: UpdateRoleInput }) => unwrap<Role>(await api.put(`/enterprise/api/v1/roles/${id}`, { role })),
    { success: (r) => `Role "${r.attributes.role_name}" saved.`, invalidate: [["roles"], ["me"]] },
  );
}

export function useDeleteRole() {
  const api = useApi();
  return useApiMutation((r: Role) => api.delete(`/enterprise/api/v1/roles/${r.id}`), {
    success: (_x, r) => `Role "${r.attributes.role_name}" deleted.`,
    invalidate: [["roles"]],
  });
}

export interface MemberAttributes {
  user_id: number;
  email: string;
  /** Null until the person has used this workspace (joined_at). */
  name: string | null;
  workspace_id: number;
  role_id: number;
  role_name: string;
  joined_at: string | null;
  last_login_at: string | null;
  created_at: string;
}

export function useMembers(workspaceId: number | undefined, page: number) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("members", workspaceId, page),
    queryFn: () => api.get<ListResponse<MemberAttributes>>(`/api/v1/workspaces/${workspaceId}/members`, { page, per_page: 25 }),
    enabled: Boolean(workspaceId),
  });
}

export function useAddMember(workspaceId: number | undefined) {
  const api = useApi();
  return useApiMutation((member: CreateMemberInput) => api.post(`/api/v1/workspaces/${workspaceId}/members`, { member }), {
    success: (_r, m) => `${m.email} added to the workspace.`,
    invalidate: [["members"]],
    toastErrors: false,
  });
}

export function useChangeMemberRole(workspaceId: number | undefined) {
  const api = useApi();
  return useApiMutation(
    ({ userId, roleId }: { userId: number; roleId: number; email: string }) =>
      api.put(`/api/v1/workspaces/${workspaceId}/members/${userId}`, { member: { role_id: roleId } }),
    { success: (_r, v) => `Role of ${v.email} changed.`, invalidate: [["members"], ["me"]] },
  );
}

export function useRemoveMember(workspaceId: number | undefined) {
  const api = useApi();
  return useApiMutation(({ userId }: { userId: number; email: string }) => api.delete(`/api/v1/workspaces/${workspaceId}/members/${userId}`), {
    success: (_r, v) => `${v.email} removed from the workspace.`,
    invalidate: [["members"]],
  });
}

export interface ApiTokenAttributes {
  name: string;
  role_id: number | null;
  role_name: string | null;
  user_id: number;
  user_email: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  token?: string;
}

export function useApiTokens(page: number) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("api_tokens", page),
    queryFn: () => api.get<ListResponse<ApiTokenAttributes>>("/api/v1/api_tokens", { page, per_page: 25 }),
  });
}

export function useCreateApiToken() {
  const api = useApi();
  return useApiMutation(
    async (api_token: CreateApiTokenInput) => unwrap<Resource<ApiTokenAttributes>>(await api.post("/api/v1/api_tokens", { api_token })),
    { success: "API token created. Copy it now: it is not shown again.", invalidate: [["api_tokens"]], toastErrors: false },
  );
}

export function useRevokeApiToken() {
  const api = useApi();
  return useApiMutation((t: Resource<ApiTokenAttributes>) => api.delete(`/api/v1/api_tokens/${t.id}`), {
    success: (_r, t) => `Token "${t.attributes.name}" revoked.`,
    invalidate: [["api_tokens"]],
  });
}

/** PUT /api/v1/users/me/password: every session, this one included, ends when it succeeds. */
export function useChangePassword() {
  const api = useApi();
  return useApiMutation(async (input: ChangePasswordInput) => api.put("/api/v1/users/me/password", input), {
    toastErrors: false,
  });
}
