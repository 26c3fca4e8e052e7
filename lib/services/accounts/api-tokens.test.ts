import { afterEach, describe, expect, it, vi } from "vitest";
import { can } from "@/lib/auth/permissions";
import { prisma } from "@/lib/db/client";
import { Forbidden, NotFound, Unauthorized, ValidationFailed } from "@/lib/errors";
import { parsePage } from "@/lib/http/pagination";
import { useTestDatabase } from "@/tests/support/db";
import { createApiToken, listApiTokens, revokeApiToken } from "./api-tokens";
import { authenticate } from "./auth-context";
import { newMember, newWorkspace, systemRoleId } from "@/tests/support/auth-fixtures";

useTestDatabase();
afterEach(() => vi.useRealTimers());

const page = parsePage(new URLSearchParams());

describe("API tokens", () => {
  it("creates a token that authenticates in its workspace only, stores only the jti", async () => {
    const { auth, user, workspaceId } = await newMember("Member");
    const created = await createApiToken(auth, { name: "CI" });
    expect(created.token.split(".")).toHaveLength(3);
    const row = await prisma().apiToken.findUniqueOrThrow({ where: { id: created.id } });
    expect(JSON.stringify(row)).not.toContain(created.token);
    const ctx = await authenticate(created.token, null);
    expect(ctx).toMatchObject({ workspaceId, tokenKind: "api_token", user: { id: user.id } });
    // A second workspace of the same user is out of the token's reach.
    const other = await newWorkspace();
    await prisma().workspaceUser.create({
      data: { workspaceId: other, userId: user.id, roleId: await systemRoleId("Admin"), joinedAt: new Date() },
    });
    await expect(authenticate(created.token, String(other))).rejects.toBeInstanceOf(NotFound);
    const log = await prisma().auditLog.findFirstOrThrow({
      where: { resourceType: "api_token", resourceId: String(created.id) },
    });
    expect(log.action).toBe("create");
  });

  it("narrows the role and never lets it exceed the creator's", async () => {
    const { auth } = await newMember("Member");
    const viewerToken = await createApiToken(auth, { name: "ro", role_id: await systemRoleId("Viewer") });
    const ctx = await authenticate(viewerToken.token, null);
    expect(can(ctx.policies, "sync", "read")).toBe(true);
    expect(can(ctx.policies, "sync", "create")).toBe(false);
    await expect(
      createApiToken(auth, { name: "up", role_id: await systemRoleId("Admin") }),
    ).rejects.toBeInstanceOf(Forbidden);
    await expect(createApiToken(auth, { name: "x", role_id: 999_999 })).rejects.toBeInstanceOf(
      ValidationFailed,
    );
  });

  it("rejects an expiry in the past; an expired token is 401", async () => {
    const { auth } = await newMember("Member");
    await expect(createApiToken(auth, { name: "old", expires_at: "2000-01-01T00:00:00Z" })).rejects.toThrow(
      /in the future/,
    );
    // Only the clock is faked: the database driver's timers and sockets stay real.
    vi.useFakeTimers({ toFake: ["Date"] });
    const soon = await createApiToken(auth, {
      name: "soon",
      expires_at: new Date(Date.now() + 60_000).toISOString(),
    });
    await expect(authenticate(soon.token, null)).resolves.toBeDefined();
    vi.setSystemTime(Date.now() + 59_000);
    await expect(authenticate(soon.token, null)).resolves.toBeDefined();
    vi.setSystemTime(Date.now() + 1_000);
    await expect(authenticate(soon.token, null)).rejects.toBeInstanceOf(Unauthorized);
  });

  it("revokes at once; lists own tokens, managers see all of the workspace", async () => {
    const admin = await newMember("Admin");
    const member = await newMember("Member", admin.workspaceId);
    const mine = await createApiToken(member.auth, { name: "mine" });
    await createApiToken(admin.auth, { name: "admin's" });
    expect((await listApiTokens(member.auth, page)).rows.map((t) => t.name)).toEqual(["mine"]);
    expect((await listApiTokens(admin.auth, page)).total).toBe(2);
    // A Member cannot revoke the Admin's token (it is not visible to them): 404.
    const adminsToken = (await listApiTokens(admin.auth, page)).rows.find((t) => t.name === "admin's")!;
    await expect(revokeApiToken(member.auth, adminsToken.id)).rejects.toBeInstanceOf(NotFound);
    await revokeApiToken(admin.auth, mine.id);
    await expect(authenticate(mine.token, null)).rejects.toBeInstanceOf(Unauthorized);
    await expect(revokeApiToken(admin.auth, mine.id)).rejects.toBeInstanceOf(NotFound);
    expect((await listApiTokens(member.auth, page)).total).toBe(0);
  });

  it("tokens of another workspace are 404", async () => {
    const a = await newMember("Admin");
    const b = await newMember("Admin");
    const t = await createApiToken(a.auth, { name: "a" });
    await expect(revokeApiToken(b.auth, t.id)).rejects.toBeInstanceOf(NotFound);
  });

  it("a token mints tokens with at most its own role and expiry", async () => {
    const { auth } = await newMember("Admin");
    const role = await prisma().role.create({
      data: {
        workspaceId: auth.workspaceId,
        name: "Minter",
        roleType: "custom",
        policies: { permissions: { api_token: { create: true, read: true, update: false, delete: false } } },
      },
    });
    const expiry = new Date(Date.now() + 3_600_000);
    const minter = await createApiToken(auth, {
      name: "m",
      role_id: role.id,
      expires_at: expiry.toISOString(),
    });
    const minterAuth = await authenticate(minter.token, null);
    expect(minterAuth.apiToken).toMatchObject({ id: minter.id, roleId: role.id, expiresAt: expiry, role: { name: "Minter" } });
    const minted = await createApiToken(minterAuth, { name: "child" });
    expect(minted.roleId).toBe(role.id);
    expect(minted.expiresAt).toEqual(expiry);
    const childAuth = await authenticate(minted.token, null);
    expect(can(childAuth.policies, "connector", "read")).toBe(false);
    await expect(
      createApiToken(minterAuth, {
        name: "late",
        expires_at: new Date(expiry.getTime() + 1000).toISOString(),
      }),
    ).rejects.toThrow(/no later than itself/);
    // A session (the person) is not bound by any token: no role means its own role, no expiry.
    const own = await createApiToken(auth, { name: "own" });
    expect(own.roleId).toBeNull();
    expect(own.expiresAt).toBeNull();
  });

  it("revoking a token revokes the tokens it minted, down the generations, and no other", async () => {
    const { auth } = await newMember("Admin");
    const parent = await createApiToken(auth, { name: "parent" });
    const child = await createApiToken(await authenticate(parent.token, null), { name: "child" });
    const grandchild = await createApiToken(await authenticate(child.token, null), { name: "grandchild" });
    const sibling = await createApiToken(auth, { name: "sibling" });
    expect(child.parentId).toBe(parent.id);
    await revokeApiToken(auth, parent.id);
    for (const t of [parent, child, grandchild]) await expect(authenticate(t.token, null)).rejects.toThrow(/revoked/);
    await expect(authenticate(sibling.token, null)).resolves.toMatchObject({ tokenKind: "api_token" });
  });
});
