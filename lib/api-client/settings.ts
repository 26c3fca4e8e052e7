"use client";
// The signed-in user, workspaces, members, roles and API tokens.
import { useQuery } from "@tanstack/react-query";
import type { CreateApiTokenInput } from "@/lib/validation/api-tokens";
import type { ChangePasswordInput } from "@/lib/validation/auth";
import type { CreateMemberInput } from "@/lib/validation/members";
import type { CreateRoleInput, UpdateRoleInput } from "@/lib/validation/roles";
import type { operations } from "./generated/openapi";
import type { ApiToken, ApiTokenAttributes, Crud, MemberAttributes, Policies, Role } from "./types";
import { useApi } from "./provider";
import { useApiMutation, useKey } from "./query";

export type { ApiTokenAttributes, MemberAttributes };

export type Me = NonNullable<operations["getCurrentUser"]["responses"][200]["content"]["application/json"]>["data"];
export type MeAttributes = Me["attributes"];

export function useMe() {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("me"),
    queryFn: async () => (await api.ok(api.GET("/api/v1/users/me"))).data,
    staleTime: 60_000,
  });
}

/** Whether the signed-in user's role allows an action here; false until known. */
export function useCan(resource: keyof Policies["permissions"], action: keyof Crud): boolean {
  const me = useMe();
  return me.data?.attributes.role?.policies?.permissions?.[resource]?.[action] === true;
}

export function useRoles() {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("roles"),
    queryFn: async () => (await api.ok(api.GET("/enterprise/api/v1/roles"))).data,
  });
}

export function useCreateRole() {
  const api = useApi();
  return useApiMutation(async (role: CreateRoleInput) => (await api.ok(api.POST("/enterprise/api/v1/roles", { body: { role } }))).data, {
    success: (r) => `Role "${r.attributes.role_name}" created.`,
    invalidate: [["roles"]],
  });
}

export function useUpdateRole() {
  const api = useApi();
  return useApiMutation(
    async ({ id, role }: { id: string; role: UpdateRoleInput }) =>
      (await api.ok(api.PUT("/enterprise/api/v1/roles/{id}", { params: { path: { id: Number(id) } }, body: { role } }))).data,
    { success: (r) => `Role "${r.attributes.role_name}" saved.`, invalidate: [["roles"], ["me"]] },
  );
}

export function useDeleteRole() {
  const api = useApi();
  return useApiMutation((r: Role) => api.ok(api.DELETE("/enterprise/api/v1/roles/{id}", { params: { path: { id: Number(r.id) } } })), {
    success: (_x, r) => `Role "${r.attributes.role_name}" deleted.`,
    invalidate: [["roles"]],
  });
}

export function useMembers(workspaceId: number | undefined, page: number) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("members", workspaceId, page),
    queryFn: () =>
      api.ok(
        api.GET("/api/v1/workspaces/{id}/members", { params: { path: { id: Number(workspaceId) }, query: { page, per_page: 25 } } }),
      ),
    enabled: Boolean(workspaceId),
  });
}

/** `sendsMail`: the server mails the link (SMTP_URL); without it the link is only in the server's log. */
export function useAddMember(workspaceId: number | undefined, sendsMail: boolean) {
  const api = useApi();
  const add = (member: CreateMemberInput) =>
    api.ok(api.POST("/api/v1/workspaces/{id}/members", { params: { path: { id: Number(workspaceId) } }, body: { member } }));
  return useApiMutation(add, {
    success: (_r, m) =>
      sendsMail
        ? `${m.email} invited: they join once they accept through the link mailed to them.`
        : `${m.email} invited, but not mailed: this server sends no mail. The invitation link is in the server's log; ask whoever runs the server to pass it on.`,
    invalidate: [["members"]],
    toastErrors: false,
  });
}

export function useChangeMemberRole(workspaceId: number | undefined) {
  const api = useApi();
  return useApiMutation(
    ({ userId, roleId }: { userId: number; roleId: number; email: string }) =>
      api.ok(
        api.PUT("/api/v1/workspaces/{id}/members/{user_id}", {
          params: { path: { id: Number(workspaceId), user_id: userId } },
          body: { member: { role_id: roleId } },
        }),
      ),
    { success: (_r, v) => `Role of ${v.email} changed.`, invalidate: [["members"], ["me"]] },
  );
}

export function useRemoveMember(workspaceId: number | undefined) {
  const api = useApi();
  const remove = ({ userId }: { userId: number; email: string }) =>
    api.ok(api.DELETE("/api/v1/workspaces/{id}/members/{user_id}", { params: { path: { id: Number(workspaceId), user_id: userId } } }));
  return useApiMutation(remove, {
    success: (_r, v) => `${v.email} removed from the workspace.`,
    invalidate: [["members"]],
  });
}

export function useApiTokens(page: number) {
  const api = useApi();
  const key = useKey();
  return useQuery({
    queryKey: key("api_tokens", page),
    queryFn: () => api.ok(api.GET("/api/v1/api_tokens", { params: { query: { page, per_page: 25 } } })),
  });
}

export function useCreateApiToken() {
  const api = useApi();
  return useApiMutation(
    async (api_token: CreateApiTokenInput) =>
      (await api.ok(api.POST("/api/v1/api_tokens", { body: { api_token } }))).data,
    { success: "API token created. Copy it now: it is not shown again.", invalidate: [["api_tokens"]], toastErrors: false },
  );
}

export function useRevokeApiToken() {
  const api = useApi();
  const revoke = (t: Pick<ApiToken, "id" | "attributes">) => api.ok(api.DELETE("/api/v1/api_tokens/{id}", { params: { path: { id: Number(t.id) } } }));
  return useApiMutation(revoke, {
    success: (_r, t) => `Token "${t.attributes.name}" revoked.`,
    invalidate: [["api_tokens"]],
  });
}

/** PUT /api/v1/users/me/password: every session, this one included, ends when it succeeds. */
export function useChangePassword() {
  const api = useApi();
  return useApiMutation((input: ChangePasswordInput) => api.ok(api.PUT("/api/v1/users/me/password", { body: input })), {
    toastErrors: false,
  });
}
