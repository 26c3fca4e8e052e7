import { describe, expect, it } from "vitest";
import { NO_PASSWORD } from "@/lib/auth/password";
import { prisma } from "@/lib/db/client";
import { Conflict, Forbidden, NotFound, RateLimited } from "@/lib/errors";
import { parsePage } from "@/lib/http/pagination";
import { useTestDatabase } from "@/tests/support/db";
import { createApiToken } from "./api-tokens";
import { authenticate } from "./auth-context";
import { newMember, signedIn, systemRoleId } from "@/tests/support/auth-fixtures";
import { addMember, listMembers, removeMember, updateMember } from "./members";
import {
  createWorkspace,
  deleteWorkspace,
  getWorkspace,
  listWorkspaces,
  updateWorkspace,
  workspaceAccess,
} from "./workspaces";

useTestDatabase();

const page = parsePage(new URLSearchParams());
const base = { consoleBase: "https://console.test" };

describe("workspaces", () => {
  it("creates a workspace whose creator is Admin, listed among the caller's workspaces", async () => {
    const { auth } = await newMember("Admin");
    const ws = await createWorkspace(auth, { name: "Marketing Ops" });
    expect(ws.slug).toMatch(/^marketing-ops-[0-9a-f]{6}$/);
    expect(ws.members[0].role.name).toBe("Admin");
    const { rows, total } = await listWorkspaces(auth, page);
    expect(total).toBe(2);
    expect(rows.map((w) => w.name)).toEqual(["Test workspace", "Marketing Ops"]);
    const log = await prisma().auditLog.findFirstOrThrow({
      where: { workspaceId: ws.id, resourceType: "workspace" },
    });
    expect(log).toMatchObject({ action: "create", resourceId: String(ws.id) });
  });

  it("checks membership and permission in the workspace of the path, not the current one", async () => {
    const admin = await newMember("Admin");
    const viewer = await newMember("Viewer", admin.workspaceId);
    // The viewer is Admin of its own second workspace and works from there.
    const second = await createWorkspace(viewer.auth, { name: "Viewer's own" });
    const fromSecond = await signedIn(viewer.user.id, second.id);
    await expect(updateWorkspace(fromSecond, admin.workspaceId, { name: "x" })).rejects.toBeInstanceOf(
      Forbidden,
    );
    await expect(updateWorkspace(viewer.auth, second.id, { name: "Renamed" })).resolves.toMatchObject({
      name: "Renamed",
    });
    // A workspace the caller does not belong to is the same 404 as an unknown one.
    const stranger = await newMember("Admin");
    await expect(getWorkspace(stranger.auth, admin.workspaceId)).rejects.toBeInstanceOf(NotFound);
    await expect(getWorkspace(stranger.auth, 999_999)).rejects.toBeInstanceOf(NotFound);
    await expect(workspaceAccess(stranger.auth, admin.workspaceId, "workspace", "read")).rejects.toThrow(
      /was not found/,
    );
  });

  it("confines an API token to its own workspace", async () => {
    const { auth, user } = await newMember("Admin");
    const other = await createWorkspace(auth, { name: "Other" });
    const token = await createApiToken(auth, { name: "t" });
    const ctx = await authenticate(token.token, null);
    expect((await listWorkspaces(ctx, page)).rows.map((w) => w.id)).toEqual([auth.workspaceId]);
    await expect(getWorkspace(ctx, other.id)).rejects.toBeInstanceOf(NotFound);
    expect(user.id).toBe(ctx.user.id);
  });

  it("deletes a workspace with everything in it, but never the caller's last one", async () => {
    const { auth } = await newMember("Admin");
    await expect(deleteWorkspace(auth, auth.workspaceId)).rejects.toBeInstanceOf(Conflict);
    const doomed = await createWorkspace(auth, { name: "Doomed" });
    const member = await newMember("Member", doomed.id);
    await createApiToken(member.auth, { name: "t" });
    await deleteWorkspace(auth, doomed.id);
    expect(await prisma().workspace.findUnique({ where: { id: doomed.id } })).toBeNull();
    expect(await prisma().workspaceUser.count({ where: { workspaceId: doomed.id } })).toBe(0);
    const log = await prisma().auditLog.findFirstOrThrow({
      where: { workspaceId: auth.workspaceId, resourceType: "workspace", action: "delete" },
    });
    expect(log.metadata).toEqual({ name: "Doomed" });
  });

  it("only an Admin of that workspace may delete it", async () => {
    const admin = await newMember("Admin");
    const member = await newMember("Member", admin.workspaceId);
    await createWorkspace(member.auth, { name: "Member's own" }).catch(() => undefined);
    await expect(deleteWorkspace(member.auth, admin.workspaceId)).rejects.toBeInstanceOf(Forbidden);
  });
});

describe("members", () => {
  it("invites a new address (an account without a password) or an existing account (keeping its own), pending, never twice", async () => {
    const admin = await newMember("Admin");
    const viewerRole = await systemRoleId("Viewer");
    const created = await addMember(admin.auth, admin.workspaceId, { email: "new@example.com", name: "New", role_id: viewerRole }, base);
    expect(created.role.name).toBe("Viewer");
    expect(created.joinedAt).toBeNull();
    const invite = { email: "new@example.com", name: "Typed", role_id: viewerRole };
    await expect(addMember(admin.auth, admin.workspaceId, invite, base)).rejects.toThrow(/already invited/);
    const elsewhere = await newMember("Admin");
    const added = await addMember(elsewhere.auth, elsewhere.workspaceId, { ...invite, email: admin.user.email }, base);
    expect(added.userId).toBe(admin.user.id);
    expect(added.joinedAt).toBeNull();
    const fresh = await prisma().user.findUniqueOrThrow({ where: { id: created.userId } });
    expect(fresh.passwordHash).toBe(NO_PASSWORD);
    const existing = await prisma().user.findUniqueOrThrow({ where: { id: admin.user.id } });
    expect(existing.passwordHash).not.toBe(NO_PASSWORD);
    expect(existing.name).not.toBe("Typed");
    // The pending membership gives no access to the invited account.
    await expect(workspaceAccess(admin.auth, elsewhere.workspaceId, "connector", "read")).rejects.toBeInstanceOf(NotFound);
    expect((await listMembers(admin.auth, admin.workspaceId, page)).total).toBe(2);
    await expect(
      addMember(admin.auth, admin.workspaceId, { email: "x@example.com", name: "X", role_id: 999_999 }, base),
    ).rejects.toThrow(/member\.role_id: role 999999 does not exist/);
  });

  it("mails one address at most ACCOUNT_MAX_MAILS_PER_EMAIL invitations a window (invite, remove, invite… is a 429)", async () => {
    const admin = await newMember("Admin");
    const invite = { email: "flooded@example.com", name: "F", role_id: await systemRoleId("Viewer") };
    for (let i = 0; i < 5; i++) {
      const m = await addMember(admin.auth, admin.workspaceId, invite, base);
      await removeMember(admin.auth, admin.workspaceId, m.userId);
    }
    await expect(addMember(admin.auth, admin.workspaceId, invite, base)).rejects.toBeInstanceOf(RateLimited);
  });

  it("never leaves a workspace without an Admin", async () => {
    const admin = await newMember("Admin");
    const memberRole = await systemRoleId("Member");
    await expect(
      updateMember(admin.auth, admin.workspaceId, admin.user.id, { role_id: memberRole }),
    ).rejects.toBeInstanceOf(Conflict);
    await expect(removeMember(admin.auth, admin.workspaceId, admin.user.id)).rejects.toThrow(/last Admin/);
    // A pending Admin invitation does not count: it may never be accepted.
    const invited = await addMember(admin.auth, admin.workspaceId, { email: "pending-admin@example.com", name: "P", role_id: await systemRoleId("Admin") }, base);
    await expect(removeMember(admin.auth, admin.workspaceId, admin.user.id)).rejects.toThrow(/last Admin/);
    await removeMember(admin.auth, admin.workspaceId, invited.userId);
    const second = await newMember("Member", admin.workspaceId);
    await updateMember(admin.auth, admin.workspaceId, second.user.id, {
      role_id: await systemRoleId("Admin"),
    });
    await removeMember(admin.auth, admin.workspaceId, admin.user.id);
    const promoted = await signedIn(second.user.id, second.workspaceId);
    expect((await listMembers(promoted, second.workspaceId, page)).rows.map((m) => m.userId)).toEqual([
      second.user.id,
    ]);
  });

  it("revokes the removed member's API tokens of that workspace", async () => {
    const admin = await newMember("Admin");
    const member = await newMember("Member", admin.workspaceId);
    const token = await createApiToken(member.auth, { name: "t" });
    await removeMember(admin.auth, admin.workspaceId, member.user.id);
    await expect(authenticate(token.token, null)).rejects.toThrow(/revoked/);
    await expect(removeMember(admin.auth, admin.workspaceId, member.user.id)).rejects.toBeInstanceOf(
      NotFound,
    );
  });

  it("requires user.* in that workspace, and no granting above one's own role", async () => {
    const admin = await newMember("Admin");
    const member = await newMember("Member", admin.workspaceId);
    await expect(listMembers(member.auth, admin.workspaceId, page)).rejects.toBeInstanceOf(Forbidden);
    const custom = await prisma().role.create({
      data: {
        workspaceId: admin.workspaceId,
        name: "People manager",
        roleType: "custom",
        policies: { permissions: { user: { create: true, read: true, update: true, delete: true } } },
      },
    });
    await prisma().workspaceUser.updateMany({
      where: { userId: member.user.id },
      data: { roleId: custom.id },
    });
    const manager = await signedIn(member.user.id, admin.workspaceId);
    await expect(
      addMember(manager, admin.workspaceId, {
        email: "boss@example.com",
        name: "B",
        role_id: await systemRoleId("Admin"),
      }, base),
    ).rejects.toThrow(/would grant permissions your own role does not have/);
  });

  it("audits member changes in that workspace", async () => {
    const admin = await newMember("Admin");
    await addMember(admin.auth, admin.workspaceId, {
      email: "audit@example.com",
      name: "A",
      role_id: await systemRoleId("Viewer"),
    }, base);
    const logs = await prisma().auditLog.findMany({
      where: { workspaceId: admin.workspaceId, resourceType: "member" },
    });
    expect(logs).toHaveLength(1);
    // Nothing in the log tells whether the email already had an account.
    expect(logs[0].metadata).toEqual({ email: "audit@example.com", role_name: "Viewer" });
  });
});
