import { describe, expect, it, vi } from "vitest";
import { signToken } from "@/lib/auth/jwt";
import { can } from "@/lib/auth/permissions";
import { prisma } from "@/lib/db/client";
import { NotFound, Unauthorized } from "@/lib/errors";
import { useTestDatabase } from "@/tests/support/db";
import { createApiToken, revokeApiToken } from "./api-tokens";
import { logout } from "./auth";
import { authenticate } from "./auth-context";
import { newMember, newWorkspace, systemRoleId } from "@/tests/support/auth-fixtures";

useTestDatabase();

const session = async (userId: number) => (await signToken({ userId, kind: "session" })).token;

describe("authenticate: every request sees the current state of the database", () => {
  it("picks the requested workspace, else the first membership; another workspace is 404", async () => {
    const { user, workspaceId } = await newMember("Viewer");
    const second = await newWorkspace();
    await prisma().workspaceUser.create({
      data: { workspaceId: second, userId: user.id, roleId: await systemRoleId("Admin"), joinedAt: new Date() },
    });
    const token = await session(user.id);
    expect(await authenticate(token, null)).toMatchObject({
      workspaceId,
      roleName: "Viewer",
      user: { id: user.id, email: user.email },
    });
    expect(await authenticate(token, String(second))).toMatchObject({
      workspaceId: second,
      roleName: "Admin",
      tokenKind: "session",
    });
    const foreign = await newWorkspace();
    await expect(authenticate(token, String(foreign))).rejects.toThrow(
      new NotFound(`Workspace ${foreign} was not found.`),
    );
  });

  it("Workspace-Id 0 is the default workspace; a user-level call ('any') never 404s on the header", async () => {
    const { user, workspaceId } = await newMember("Viewer");
    const second = await newWorkspace();
    await prisma().workspaceUser.create({
      data: { workspaceId: second, userId: user.id, roleId: await systemRoleId("Admin"), joinedAt: new Date() },
    });
    const token = await session(user.id);
    expect(await authenticate(token, "0")).toMatchObject({ workspaceId, roleName: "Viewer" });
    expect(await authenticate(token, "0", "any")).toMatchObject({ workspaceId, roleName: "Viewer" });
    // A workspace of the user is used; a foreign or unknown one answers exactly like no header.
    expect(await authenticate(token, String(second), "any")).toMatchObject({ workspaceId: second, roleName: "Admin" });
    const foreign = await newWorkspace();
    expect(await authenticate(token, String(foreign), "any")).toMatchObject({ workspaceId, roleName: "Viewer" });
    expect(await authenticate(token, "999999999", "any")).toMatchObject({ workspaceId, roleName: "Viewer" });
    await expect(authenticate(token, "abc", "any")).rejects.toThrow(/positive integer/);
    // An API token stays in its own workspace whatever the header.
    const minted = await createApiToken(await authenticate(token, String(second)), { name: "user-level" });
    expect(await authenticate(minted.token, String(workspaceId), "any")).toMatchObject({ workspaceId: second });
    await expect(authenticate(minted.token, String(workspaceId))).rejects.toBeInstanceOf(NotFound);
  });

  it("a role change applies to the next request with the same token", async () => {
    const { user, workspaceId } = await newMember("Admin");
    const token = await session(user.id);
    expect(can((await authenticate(token, String(workspaceId))).policies, "sync", "create")).toBe(true);
    await prisma().workspaceUser.update({
      where: { workspaceId_userId: { workspaceId, userId: user.id } },
      data: { roleId: await systemRoleId("Viewer") },
    });
    const after = await authenticate(token, String(workspaceId));
    expect(after.roleName).toBe("Viewer");
    expect(can(after.policies, "sync", "create")).toBe(false);
  });

  it("a removed membership is 404 for that workspace and 401 without one; a deleted user is 401", async () => {
    const { user, workspaceId } = await newMember("Member");
    const token = await session(user.id);
    await prisma().workspaceUser.delete({ where: { workspaceId_userId: { workspaceId, userId: user.id } } });
    await expect(authenticate(token, String(workspaceId))).rejects.toBeInstanceOf(NotFound);
    await expect(authenticate(token, null)).rejects.toThrow(/not a member of any workspace/);
    await prisma().user.delete({ where: { id: user.id } });
    await expect(authenticate(token, String(workspaceId))).rejects.toBeInstanceOf(Unauthorized);
    await expect(authenticate(token, null)).rejects.toBeInstanceOf(Unauthorized);
  });

  it("logout revokes the token at once, also when it was verified before", async () => {
    const { user } = await newMember("Member");
    const token = await session(user.id);
    const auth = await authenticate(token, null);
    await logout(auth);
    await expect(authenticate(token, null)).rejects.toBeInstanceOf(Unauthorized);
    // Another session of the same user is unaffected.
    await expect(authenticate(await session(user.id), null)).resolves.toMatchObject({
      user: { id: user.id },
    });
  });

  it("refuses tokens that are not ours or name a user id out of range", async () => {
    await expect(authenticate("not-a-jwt", null)).rejects.toBeInstanceOf(Unauthorized);
    await expect(authenticate(await session(2 ** 31), null)).rejects.toBeInstanceOf(Unauthorized);
    await expect(authenticate(await session(987_654_321), null)).rejects.toBeInstanceOf(Unauthorized);
    await expect(authenticate(null, null)).rejects.toThrow(/Authentication required/);
  });
});

describe("authenticate with an API token", () => {
  it("acts in the token's workspace with the narrower role; revocation applies to the next request", async () => {
    const { auth, workspaceId } = await newMember("Member");
    const created = await createApiToken(auth, { name: "ro", role_id: await systemRoleId("Viewer") });
    const ctx = await authenticate(created.token, null);
    expect(ctx).toMatchObject({ workspaceId, tokenKind: "api_token", roleName: "Member" });
    expect(can(ctx.policies, "sync", "read")).toBe(true);
    expect(can(ctx.policies, "sync", "create")).toBe(false);
    await expect(authenticate(created.token, String(workspaceId))).resolves.toMatchObject({ workspaceId });
    await revokeApiToken(auth, created.id);
    await expect(authenticate(created.token, null)).rejects.toBeInstanceOf(Unauthorized);
  });

  it("records last_used_at on first use and not again within the minute", async () => {
    const { auth } = await newMember("Member");
    const created = await createApiToken(auth, { name: "ci" });
    const lastUsed = async () =>
      (await prisma().apiToken.findUniqueOrThrow({ where: { id: created.id } })).lastUsedAt;
    // The stamp is written in the background; whether a request writes it is decided before
    // authenticate() returns, so the writes it starts are counted there.
    const writes = vi.spyOn(prisma().apiToken, "update");
    await authenticate(created.token, null);
    expect(writes).toHaveBeenCalledTimes(1);
    await expect.poll(lastUsed).not.toBeNull();
    const first = await lastUsed();
    await authenticate(created.token, null);
    expect(writes).toHaveBeenCalledTimes(1);
    expect(await lastUsed()).toEqual(first);
    writes.mockRestore();
    // An hour-old stamp is refreshed.
    await prisma().apiToken.update({
      where: { id: created.id },
      data: { lastUsedAt: new Date(Date.now() - 3_600_000) },
    });
    await authenticate(created.token, null);
    await expect.poll(async () => (await lastUsed())!.getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it("a token whose membership is gone is 404 for its workspace", async () => {
    const { auth, user, workspaceId } = await newMember("Member");
    const created = await createApiToken(auth, { name: "x" });
    await prisma().workspaceUser.delete({ where: { workspaceId_userId: { workspaceId, userId: user.id } } });
    await expect(authenticate(created.token, null)).rejects.toThrow(
      new NotFound(`Workspace ${workspaceId} was not found.`),
    );
  });
});
