// The walk's steps for access: sign-in, accounts, API tokens, workspaces, members, roles, audit
// log and reports. Each calls its operation through the generated client (see contract-walk.ts).
import { expect } from "@playwright/test";
import { ADMIN } from "./api";
import { createdId, expectStatus, strongPassword } from "./contract-fixtures";
import type { Steps } from "./contract-walk";
import { unique } from "./data";
import { invitationFor } from "./mailbox";

const CRUD = { create: true, read: true, update: true, delete: false };

export const ACCESS_STEPS = {
  // Authentication
  login: async (fx) => {
    await fx.login(ADMIN.email, ADMIN.password);
    await expectStatus(
      fx.anonymous().POST("/api/v1/login", { body: { email: ADMIN.email, password: "not-the-password" } }),
      401,
    );
  },
  logout: async (fx) => {
    const client = fx.client(await fx.login(ADMIN.email, ADMIN.password));
    await expectStatus(client.DELETE("/api/v1/logout"), 200);
  },
  getCurrentUser: async (fx) => {
    await expectStatus((await fx.admin()).GET("/api/v1/users/me"), 200);
  },
  changePassword: async (fx) => {
    const member = await fx.newMember();
    await expectStatus(
      member.client.PUT("/api/v1/users/me/password", {
        body: { current_password: "wrong-password", password: strongPassword() },
      }),
      422,
    );
    await expectStatus(
      member.client.PUT("/api/v1/users/me/password", {
        body: { current_password: member.password, password: strongPassword() },
      }),
      200,
    );
  },

  // Accounts
  signup: async (fx) => {
    const password = strongPassword();
    // Sign-up is off on the test server (the secure default): its documented 403.
    await expectStatus(
      fx.anonymous().POST("/api/v1/signup", {
        body: {
          name: "Contract",
          email: `${unique("signup")}@example.com`,
          password,
          password_confirmation: password,
        },
      }),
      403,
    );
  },
  forgotPassword: async (fx) => {
    const member = await fx.newMember();
    await expectStatus(
      fx.anonymous().POST("/api/v1/forgot_password", { body: { email: member.email } }),
      200,
    );
  },
  resetPassword: async (fx) => {
    const member = await fx.newMember();
    const password = strongPassword();
    const token = await fx.accountToken(member.userId, "reset_password");
    await expectStatus(
      fx.anonymous().POST("/api/v1/reset_password", {
        body: { reset_password_token: token, password, password_confirmation: password },
      }),
      200,
    );
    await expectStatus(
      fx.anonymous().POST("/api/v1/reset_password", {
        body: { reset_password_token: token, password, password_confirmation: password },
      }),
      422,
    );
  },
  acceptInvitation: async (fx) => {
    const { email } = await fx.invite();
    const { token } = await invitationFor(email);
    const password = strongPassword();
    // A new account chooses its password, with its confirmation: without one it is a 422 saying so.
    await expectStatus(fx.anonymous().POST("/api/v1/accept_invitation", { body: { invitation_token: token, password } }), 422);
    await expectStatus(
      fx.anonymous().POST("/api/v1/accept_invitation", {
        body: { invitation_token: token, password, password_confirmation: password },
      }),
      200,
    );
    await expectStatus(
      fx.anonymous().POST("/api/v1/accept_invitation", {
        body: { invitation_token: token, password, password_confirmation: password },
      }),
      422,
    );
  },
  verifyUser: async (fx) => {
    const member = await fx.newMember();
    const token = await fx.accountToken(member.userId, "confirm_email");
    await expectStatus(
      fx.anonymous().GET("/api/v1/verify_user", { params: { query: { confirmation_token: token } } }),
      200,
    );
    await expectStatus(
      fx.anonymous().GET("/api/v1/verify_user", { params: { query: { confirmation_token: token } } }),
      422,
    );
  },
  resendVerification: async (fx) => {
    await expectStatus(
      fx
        .anonymous()
        .POST("/api/v1/resend_verification", { body: { email: `${unique("nobody")}@example.com` } }),
      200,
    );
  },
  nextAuthGet: async (fx) => {
    await expectStatus(
      fx.anonymous().GET("/api/auth/{nextauth}", { params: { path: { nextauth: "providers" } } }),
      200,
    );
    await expectStatus(
      fx.anonymous().GET("/api/auth/{nextauth}", { params: { path: { nextauth: "csrf" } } }),
      200,
    );
  },
  nextAuthPost: async (fx) => {
    // Without next-auth's CSRF token, sign-out answers with a redirect back to its own page.
    const { response } = await fx
      .anonymous()
      .POST("/api/auth/{nextauth}", { params: { path: { nextauth: "signout" } } });
    expect(response.status).toBeGreaterThanOrEqual(200);
  },

  // API tokens
  listApiTokens: async (fx) => {
    await expectStatus((await fx.admin()).GET("/api/v1/api_tokens"), 200);
  },
  createApiToken: async (fx) => {
    await expectStatus(
      (await fx.admin()).POST("/api/v1/api_tokens", { body: { api_token: { name: unique("token") } } }),
      201,
    );
  },
  revokeApiToken: async (fx) => {
    const admin = await fx.admin();
    const id = await createdId(
      admin.POST("/api/v1/api_tokens", { body: { api_token: { name: unique("token") } } }),
    );
    await expectStatus(admin.DELETE("/api/v1/api_tokens/{id}", { params: { path: { id } } }), 204);
  },

  // Workspaces and members
  listWorkspaces: async (fx) => {
    await expectStatus((await fx.admin()).GET("/api/v1/workspaces"), 200);
  },
  createWorkspace: async (fx) => {
    await fx.workspaceId(); // made with createWorkspace; one more, flat body this time
    await expectStatus(
      (await fx.admin()).POST("/api/v1/workspaces", {
        body: { workspace: { name: unique("contract"), description: "walk" } },
      }),
      201,
    );
  },
  getWorkspace: async (fx) => {
    await expectStatus(
      (await fx.admin()).GET("/api/v1/workspaces/{id}", { params: { path: { id: await fx.workspaceId() } } }),
      200,
    );
  },
  updateWorkspace: async (fx) => {
    await expectStatus(
      (await fx.admin()).PUT("/api/v1/workspaces/{id}", {
        params: { path: { id: await fx.workspaceId() } },
        body: { workspace: { description: "Walked by the OpenAPI contract" } },
      }),
      200,
    );
  },
  deleteWorkspace: async (fx) => {
    const admin = await fx.admin();
    const id = await createdId(
      admin.POST("/api/v1/workspaces", { body: { workspace: { name: unique("doomed") } } }),
    );
    await expectStatus(admin.DELETE("/api/v1/workspaces/{id}", { params: { path: { id } } }), 204);
  },
  listMembers: async (fx) => {
    await expectStatus(
      (await fx.admin()).GET("/api/v1/workspaces/{id}/members", {
        params: { path: { id: await fx.workspaceId() } },
      }),
      200,
    );
  },
  createMember: async (fx) => {
    await fx.newMember("Member");
  },
  getMember: async (fx) => {
    const member = await fx.newMember();
    await expectStatus(
      (await fx.admin()).GET("/api/v1/workspaces/{id}/members/{user_id}", {
        params: { path: { id: await fx.workspaceId(), user_id: member.userId } },
      }),
      200,
    );
  },
  updateMember: async (fx) => {
    const member = await fx.newMember();
    await expectStatus(
      (await fx.admin()).PUT("/api/v1/workspaces/{id}/members/{user_id}", {
        params: { path: { id: await fx.workspaceId(), user_id: member.userId } },
        body: { member: { role_id: (await fx.roleIds()).Member } },
      }),
      200,
    );
  },
  deleteMember: async (fx) => {
    const member = await fx.newMember();
    await expectStatus(
      (await fx.admin()).DELETE("/api/v1/workspaces/{id}/members/{user_id}", {
        params: { path: { id: await fx.workspaceId(), user_id: member.userId } },
      }),
      204,
    );
  },

  // Roles
  listRoles: async (fx) => {
    await expectStatus((await fx.admin()).GET("/enterprise/api/v1/roles"), 200);
  },
  createRole: async (fx) => {
    await expectStatus(
      (await fx.admin()).POST("/enterprise/api/v1/roles", {
        body: {
          role: {
            role_name: unique("Role"),
            role_desc: "Syncs only",
            policies: { permissions: { sync: CRUD } },
          },
        },
      }),
      201,
    );
  },
  getRole: async (fx) => {
    await expectStatus(
      (await fx.admin()).GET("/enterprise/api/v1/roles/{id}", {
        params: { path: { id: (await fx.roleIds()).Viewer } },
      }),
      200,
    );
  },
  updateRole: async (fx) => {
    const admin = await fx.admin();
    const id = await createdId(
      admin.POST("/enterprise/api/v1/roles", {
        body: { role: { role_name: unique("Role"), policies: { permissions: { model: CRUD } } } },
      }),
    );
    await expectStatus(
      admin.PUT("/enterprise/api/v1/roles/{id}", {
        params: { path: { id } },
        body: { role: { role_desc: "Models" } },
      }),
      200,
    );
    // System roles cannot be changed.
    await expectStatus(
      admin.PUT("/enterprise/api/v1/roles/{id}", {
        params: { path: { id: (await fx.roleIds()).Viewer } },
        body: { role: { role_desc: "x" } },
      }),
      403,
    );
  },
  deleteRole: async (fx) => {
    const admin = await fx.admin();
    const id = await createdId(
      admin.POST("/enterprise/api/v1/roles", {
        body: { role: { role_name: unique("Role"), policies: { permissions: { model: CRUD } } } },
      }),
    );
    await expectStatus(admin.DELETE("/enterprise/api/v1/roles/{id}", { params: { path: { id } } }), 204);
  },

  // Audit log and reports
  listAuditLogs: async (fx) => {
    await fx.sourceId(); // something to list
    await expectStatus((await fx.admin()).GET("/api/v1/audit_logs"), 200);
  },
  getReport: async (fx) => {
    await fx.finishedRun();
    await expectStatus(
      (await fx.admin()).GET("/api/v1/reports", {
        params: { query: { type: "workspace_activity", time_period: "one_day", metric: "all" } },
      }),
      200,
    );
  },
} satisfies Steps;
