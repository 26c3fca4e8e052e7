// The route wrapper reads the caller's identity fresh on every request: a change made by any process
// (another web process, the admin CLI, by hand in the database) applies to the very next request.
import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { DELETE as logoutRoute } from "@/app/api/v1/logout/route";
import { signToken } from "@/lib/auth/jwt";
import { prisma } from "@/lib/db/client";
import { newMember, newWorkspace, systemRoleId } from "@/tests/support/auth-fixtures";
import { useTestDatabase } from "@/tests/support/db";
import { testOperation } from "@/tests/support/operation";
import { route } from "./handler";
import { JsonNumber, parseJsonExact } from "@/lib/connectors/shared/values";

useTestDatabase();

const whoAmI = route(testOperation({ permission: ["sync", "read"] }), async ({ auth }) => ({
  role: auth.roleName,
  workspace: auth.workspaceId,
}));

const request = (token: string, workspaceId: number, method = "GET") =>
  new NextRequest("http://127.0.0.1/api/v1/test", {
    method,
    headers: { authorization: `Bearer ${token}`, "workspace-id": String(workspaceId) },
  });

async function call(token: string, workspaceId: number) {
  const res = await whoAmI(request(token, workspaceId));
  return { status: res.status, body: (await res.json()) as { role?: string; message?: string } };
}

async function setRole(workspaceId: number, userId: number, role: "Admin" | "Viewer") {
  await prisma().workspaceUser.update({
    where: { workspaceId_userId: { workspaceId, userId } },
    data: { roleId: await systemRoleId(role) },
  });
}

describe("authentication on every request", () => {
  it("a role changed in the database, by another process, applies to the very next request", async () => {
    const { user, workspaceId } = await newMember("Admin");
    const { token } = await signToken({ userId: user.id, kind: "session" });
    expect(await call(token, workspaceId)).toMatchObject({ status: 200, body: { role: "Admin" } });
    await setRole(workspaceId, user.id, "Viewer");
    expect(await call(token, workspaceId)).toMatchObject({ status: 200, body: { role: "Viewer" } });
    await setRole(workspaceId, user.id, "Admin");
    expect(await call(token, workspaceId)).toMatchObject({ status: 200, body: { role: "Admin" } });
  });

  it("a session revoked or a membership removed in the database acts no more, at once", async () => {
    const { user, workspaceId } = await newMember("Admin");
    const first = await signToken({ userId: user.id, kind: "session" });
    const second = await signToken({ userId: user.id, kind: "session" });
    expect((await call(first.token, workspaceId)).status).toBe(200);
    expect((await call(second.token, workspaceId)).status).toBe(200);
    await prisma().revokedToken.create({ data: { jti: first.jti, expiresAt: new Date(Date.now() + 3_600_000) } });
    expect((await call(first.token, workspaceId)).status).toBe(401);
    await prisma().workspaceUser.delete({ where: { workspaceId_userId: { workspaceId, userId: user.id } } });
    expect((await call(second.token, workspaceId)).status).toBe(404);
  });

  it("a logout through the API refuses the token on the very next request", async () => {
    const { user, workspaceId } = await newMember("Viewer");
    const { token } = await signToken({ userId: user.id, kind: "session" });
    expect((await call(token, workspaceId)).status).toBe(200);
    expect((await logoutRoute(request(token, workspaceId, "DELETE"))).status).toBe(200);
    expect(await call(token, workspaceId)).toMatchObject({ status: 401 });
  });

  it("never remembers a refusal", async () => {
    const { user } = await newMember("Viewer");
    const other = await newWorkspace();
    const { token } = await signToken({ userId: user.id, kind: "session" });
    expect((await call(token, other)).status).toBe(404);
    await prisma().workspaceUser.create({
      data: { workspaceId: other, userId: user.id, roleId: await systemRoleId("Viewer"), joinedAt: new Date() },
    });
    expect(await call(token, other)).toMatchObject({ status: 200, body: { role: "Viewer" } });
  });

  it("keeps workspaces apart: one token, two Workspace-Id headers", async () => {
    const { user, workspaceId } = await newMember("Admin");
    const second = await newWorkspace();
    await prisma().workspaceUser.create({
      data: { workspaceId: second, userId: user.id, roleId: await systemRoleId("Viewer"), joinedAt: new Date() },
    });
    const { token } = await signToken({ userId: user.id, kind: "session" });
    expect((await call(token, workspaceId)).body).toEqual({ role: "Admin", workspace: workspaceId });
    expect((await call(token, second)).body).toEqual({ role: "Viewer", workspace: second });
    expect((await call(token, workspaceId)).body).toEqual({ role: "Admin", workspace: workspaceId });
  });
});

describe("JSON answers", () => {
  it("write a number held exactly (a record's JSON from the source) as its digits, stored or live (issue 33)", async () => {
    const exact = route(testOperation({ permission: "public" }), async () => ({
      live: parseJsonExact('{"n":12345678901234567890}'),
      // As records and plans are stored: the JsonNumber's marker string.
      stored: JSON.parse(JSON.stringify({ n: new JsonNumber("1.50") })) as unknown,
    }));
    const res = await exact(new NextRequest("http://127.0.0.1/api/v1/test"));
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.text()).toBe('{"live":{"n":12345678901234567890},"stored":{"n":1.50}}');
  });
});
