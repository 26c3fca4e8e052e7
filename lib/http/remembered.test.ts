// Answers remembered while the database is unchanged (remembered.ts): never served after a change,
// never to another caller, never to a caller who may no longer ask.
import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { signToken } from "@/lib/auth/jwt";
import { prisma } from "@/lib/db/client";
import type { AuthContext } from "@/lib/services/accounts/auth-context";
import { newMember, systemRoleId } from "@/tests/support/auth-fixtures";
import { useTestDatabase } from "@/tests/support/db";
import { testOperation } from "@/tests/support/operation";
import { route } from "./handler";
import { recall, remember, rememberedCount, rememberKey } from "./remembered";

useTestDatabase();

let computed = 0;
/** A read answered from the database and the caller: the workspace's name and the caller's role. */
const remembered = route(
  testOperation({ permission: ["sync", "read"] }),
  async ({ auth }) => {
    computed++;
    const { name } = await prisma().workspace.findUniqueOrThrow({ where: { id: auth.workspaceId }, select: { name: true } });
    return { name, role: auth.roleName, user: auth.user.id };
  },
  { remember: true },
);

const request = (token: string, workspaceId: number, path = "/api/v1/test") =>
  new NextRequest(`http://127.0.0.1${path}`, { headers: { authorization: `Bearer ${token}`, "workspace-id": String(workspaceId) } });

async function call(token: string, workspaceId: number, path?: string) {
  const before = computed;
  const res = await remembered(request(token, workspaceId, path));
  const body = (await res.json()) as { name?: string; role?: string; user?: number };
  return { status: res.status, body, fresh: computed > before };
}

/** Asks until an answer comes from memory: other databases of the same server end transactions too, which forgets. */
async function untilRemembered(token: string, workspaceId: number) {
  for (let i = 0; i < 200; i++) {
    const answer = await call(token, workspaceId);
    if (!answer.fresh) return answer;
  }
  throw new Error("no answer was ever served from memory");
}

describe("remembered answers", () => {
  it("are served again while nothing changed, and never after a change", async () => {
    const { user, workspaceId } = await newMember("Admin");
    const { token } = await signToken({ userId: user.id, kind: "session" });
    const kept = await untilRemembered(token, workspaceId);
    expect(kept).toMatchObject({ status: 200, body: { role: "Admin", user: user.id } });
    await prisma().workspace.update({ where: { id: workspaceId }, data: { name: "Renamed" } });
    expect(await call(token, workspaceId)).toMatchObject({ status: 200, body: { name: "Renamed" }, fresh: true });
  });

  it("never answer a revoked session, a removed member or a changed role (the attack: ask again at once)", async () => {
    const { user, workspaceId } = await newMember("Admin");
    const revoked = await signToken({ userId: user.id, kind: "session" });
    const kept = await signToken({ userId: user.id, kind: "session" });
    await untilRemembered(revoked.token, workspaceId);
    await prisma().revokedToken.create({ data: { jti: revoked.jti, expiresAt: new Date(Date.now() + 3_600_000) } });
    expect((await call(revoked.token, workspaceId)).status).toBe(401);

    await untilRemembered(kept.token, workspaceId);
    await prisma().workspaceUser.update({
      where: { workspaceId_userId: { workspaceId, userId: user.id } },
      data: { roleId: await systemRoleId("Viewer") },
    });
    expect(await call(kept.token, workspaceId)).toMatchObject({ status: 200, body: { role: "Viewer" }, fresh: true });

    await untilRemembered(kept.token, workspaceId);
    await prisma().workspaceUser.delete({ where: { workspaceId_userId: { workspaceId, userId: user.id } } });
    expect((await call(kept.token, workspaceId)).status).toBe(404);
  });

  it("are kept per caller and per request: another member, role or query string gets its own", async () => {
    const admin = await newMember("Admin");
    const viewer = await newMember("Viewer", admin.workspaceId);
    const adminToken = (await signToken({ userId: admin.user.id, kind: "session" })).token;
    const viewerToken = (await signToken({ userId: viewer.user.id, kind: "session" })).token;
    await untilRemembered(adminToken, admin.workspaceId);
    for (let i = 0; i < 20; i++) {
      expect((await call(viewerToken, admin.workspaceId)).body).toMatchObject({ role: "Viewer", user: viewer.user.id });
      expect((await call(adminToken, admin.workspaceId)).body).toMatchObject({ role: "Admin", user: admin.user.id });
    }
    // The same caller with another query string is another request.
    const first = await call(adminToken, admin.workspaceId, "/api/v1/test?page=7");
    expect(first.fresh).toBe(true);
  });
});

describe("the memory itself", () => {
  const auth = (over: Partial<AuthContext> = {}): AuthContext => ({
    user: { id: 1, email: "a@example.com", name: "A" },
    workspaceId: 1,
    roleId: 1,
    roleName: "Admin",
    policies: { permissions: {} },
    tokenKind: "session",
    jti: "j",
    snapshot: "10:10:",
    ...over,
  });
  const url = new URL("http://127.0.0.1/api/v1/syncs");

  it("recalls an answer only under the very snapshot it was kept for, and forgets all on a new one", () => {
    const key = rememberKey("listSyncs", auth(), url);
    expect(recall(key, "10:10:")).toBeUndefined();
    remember(key, "10:10:", 200, "{}");
    expect(recall(key, "10:10:")).toMatchObject({ body: "{}", status: 200 });
    expect(recall(key, "10:11:")).toBeUndefined();
    expect(rememberedCount()).toBe(0);
    // An answer computed under an older snapshot than the newest seen is not kept.
    remember(key, "10:10:", 200, "{}");
    expect(recall(key, "10:11:")).toBeUndefined();
  });

  it("keys on who asks and what was asked", () => {
    const keys = [
      rememberKey("listSyncs", auth(), url),
      rememberKey("listSyncs", auth({ workspaceId: 2 }), url),
      rememberKey("listSyncs", auth({ user: { id: 2, email: "b@example.com", name: "B" } }), url),
      rememberKey("listSyncs", auth({ roleId: 3 }), url),
      rememberKey("listSyncs", auth({ policies: { permissions: { sync: { create: false, read: true, update: false, delete: false } } } }), url),
      rememberKey("listSyncs", auth({ tokenKind: "api_token", apiToken: { id: 5, roleId: null, expiresAt: null, role: null } }), url),
      rememberKey("listSyncs", auth(), new URL("http://example.com/api/v1/syncs")),
      rememberKey("listSyncs", auth(), new URL("http://127.0.0.1/api/v1/syncs?page=2")),
      rememberKey("listSyncRecords", auth(), url),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("stays bounded", () => {
    recall("x", "20:20:");
    for (let i = 0; i < 2000; i++) remember(`k${i}`, "20:20:", 200, "x".repeat(100));
    expect(rememberedCount()).toBeLessThanOrEqual(512);
    expect(recall("k1999", "20:20:")).toBeDefined();
    expect(recall("k0", "20:20:")).toBeUndefined();
    remember("big", "20:20:", 200, "x".repeat(2 << 20));
    expect(recall("big", "20:20:")).toBeUndefined();
  });
});
