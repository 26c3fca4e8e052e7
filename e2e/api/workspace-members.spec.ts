// A workspace's members over real HTTP: invitations (new and existing accounts), validation, roles,
// what an invitation discloses, the last Admin, and who may use these endpoints. The workspaces
// themselves and the pagination links contract: workspaces.spec.ts.
import { expect, test } from "@playwright/test";
import {
  Api,
  ISO_TIME,
  expectError,
  fieldErrors,
  loginAs,
  memberWithRole,
  newWorkspace,
  uniqueSuffix,
  type TestWorkspace,
} from "../support/api";
import { acceptInvitation } from "../support/mailbox";

let ws: TestWorkspace;
test.beforeAll(async ({ request }) => {
  ws = await newWorkspace(request, "Workspaces spec");
});

test.describe("members", () => {
  test("POST invites a new email (201, pending); its profile shows once the person accepts", async ({
    request,
  }) => {
    const email = `new-${uniqueSuffix()}@Example.com`;
    const res = await ws.admin.post(`/api/v1/workspaces/${ws.id}/members`, {
      member: { email, name: "New Person", role_id: ws.roles.Member },
    });
    expect(res.status(), await res.text()).toBe(201);
    const m = (await res.json()).data;
    expect(m.type).toBe("members");
    expect(Object.keys(m.attributes).sort()).toEqual(
      [
        "created_at",
        "email",
        "joined_at",
        "last_login_at",
        "name",
        "role_id",
        "role_name",
        "status",
        "updated_at",
        "user_id",
        "workspace_id",
      ].sort(),
    );
    expect(m.attributes).toMatchObject({
      email: email.toLowerCase(),
      name: null,
      role_id: ws.roles.Member,
      role_name: "Member",
      workspace_id: ws.id,
      status: "pending",
      joined_at: null,
      last_login_at: null,
    });
    expect(m.id).toBe(String(m.attributes.user_id));
    expect(m.attributes.created_at).toMatch(ISO_TIME);
    await acceptInvitation(request, email.toLowerCase(), "a-good-password");
    const token = await loginAs(request, email.toLowerCase(), "a-good-password");
    expect((await new Api({ token, workspaceId: ws.id }).get("/api/v1/users/me")).status()).toBe(
      200,
    );
    const shown = (await (await ws.admin.get(`/api/v1/workspaces/${ws.id}/members/${m.id}`)).json()).data;
    expect(shown.attributes).toMatchObject({
      name: "New Person",
      status: "active",
      joined_at: expect.stringMatching(ISO_TIME),
    });
    expect(shown.attributes.last_login_at).toMatch(ISO_TIME);
    const again = await expectError(
      await ws.admin.post(`/api/v1/workspaces/${ws.id}/members`, {
        member: { email, name: "N", role_id: ws.roles.Viewer },
      }),
      409,
      "conflict",
    );
    expect(again.message).toMatch(/already a member of this workspace/);
  });

  test("POST validation: name always, never a password (the invitee chooses it); role must exist here", async () => {
    const path = `/api/v1/workspaces/${ws.id}/members`;
    const email = `v-${uniqueSuffix()}@example.com`;
    const withPw = await expectError(
      await ws.admin.post(path, { member: { email, name: "N", password: "long-enough-1", role_id: ws.roles.Viewer } }),
      422,
      "validation_failed",
    );
    expect(fieldErrors(withPw)).toEqual([
      {
        path: "member.password",
        message:
          "is not accepted: the person chooses their own password through the invitation link mailed to them (an account that exists keeps its own)",
      },
    ]);
    const bad = await expectError(
      await ws.admin.post(path, { member: { email: "not-an-email", role_id: "Admin" } }),
      422,
      "validation_failed",
    );
    expect(fieldErrors(bad).map((e) => e.path).sort()).toEqual(["member.email", "member.name", "member.role_id"]);
    const role = await expectError(
      await ws.admin.post(path, { member: { email, name: "N", role_id: 99999999 } }),
      422,
      "validation_failed",
    );
    expect(fieldErrors(role)).toEqual([
      { path: "member.role_id", message: "role 99999999 does not exist in this workspace" },
    ]);
  });

  test("an existing account is invited (keeping its own password); PUT changes the role; DELETE removes", async ({
    request,
  }) => {
    const other = await newWorkspace(request);
    const person = await memberWithRole(request, other, "Viewer");
    const path = `/api/v1/workspaces/${ws.id}/members`;
    const added = await ws.admin.post(path, {
      member: { email: person.email, name: "Typed", role_id: ws.roles.Viewer },
    });
    expect(added.status(), await added.text()).toBe(201);
    expect(await loginAs(request, person.email, person.password)).toMatch(/\./);
    const put = await ws.admin.put(`${path}/${person.userId}`, { member: { role_id: ws.roles.Member } });
    expect(put.status(), await put.text()).toBe(200);
    expect((await put.json()).data.attributes.role_name).toBe("Member");
    const one = await (await ws.admin.get(`${path}/${person.userId}`)).json();
    expect(one.data.attributes.role_name).toBe("Member");
    const del = await ws.admin.delete(`${path}/${person.userId}`);
    expect(del.status()).toBe(204);
    await expectError(await ws.admin.get(`${path}/${person.userId}`), 404, "not_found");
    await expectError(await ws.admin.delete(`${path}/${person.userId}`), 404, "not_found");
    // Still a member of its other workspace.
    expect((await person.api.get("/api/v1/users/me")).status()).toBe(200);
  });

  test("inviting another tenant's user discloses nothing about the account, nor whether it exists", async ({
    request,
  }) => {
    // The victim: an account of another tenant, with a name, that has signed in.
    const victim = await memberWithRole(request, await newWorkspace(request), "Viewer");
    const attacker = await newWorkspace(request);
    const path = `/api/v1/workspaces/${attacker.id}/members`;
    const invite = (email: string) =>
      attacker.admin.post(path, {
        member: { email, name: "Guess", role_id: attacker.roles.Viewer },
      });
    const profileOf = (a: Record<string, unknown>) => ({
      name: a.name,
      last_login_at: a.last_login_at,
      joined_at: a.joined_at,
      role_name: a.role_name,
    });
    const hidden = { name: null, last_login_at: null, joined_at: null, role_name: "Viewer" };

    // The same questions for a registered email and an unregistered one get the same kind of answer.
    const fresh = `nobody-${uniqueSuffix()}@example.com`;
    for (const email of [victim.email, fresh]) {
      const body = await expectError(
        await attacker.admin.post(path, { member: { email, role_id: attacker.roles.Viewer } }),
        422,
        "validation_failed",
      );
      expect(fieldErrors(body)).toEqual([{ path: "member.name", message: "is required" }]);
    }
    const existing = await invite(victim.email);
    const created = await invite(fresh);
    expect(existing.status(), await existing.text()).toBe(201);
    expect(created.status(), await created.text()).toBe(201);
    const a = (await existing.json()).data.attributes;
    const b = (await created.json()).data.attributes;
    expect(Object.keys(a)).toEqual(Object.keys(b));
    expect(profileOf(a)).toEqual(hidden);
    expect(profileOf(b)).toEqual(hidden);

    // Nor do the listing, the member itself, or the audit log.
    const list = await (await attacker.admin.get(path)).json();
    const listed = list.data.find((m: { id: string }) => Number(m.id) === victim.userId);
    expect(profileOf(listed.attributes)).toEqual(hidden);
    const one = await (await attacker.admin.get(`${path}/${victim.userId}`)).json();
    expect(profileOf(one.data.attributes)).toEqual(hidden);
    expect(JSON.stringify([list, one])).not.toContain("Viewer member"); // the victim's real name
    const logs = await (await attacker.admin.get("/api/v1/audit_logs?per_page=100")).json();
    const invites = logs.data
      .filter((l: { attributes: { resource_type: string } }) => l.attributes.resource_type === "member")
      .map((l: { attributes: { metadata: Record<string, unknown> } }) =>
        Object.keys(l.attributes.metadata).sort(),
      );
    expect(invites).toEqual([
      ["email", "role_name"],
      ["email", "role_name"],
    ]);

    // The victim's own password still works and the typed one does not.
    expect(await loginAs(request, victim.email, victim.password)).toMatch(/\./);
    expect(
      (
        await request.post("/api/v1/login", { data: { email: victim.email, password: "guess-password" } })
      ).status(),
    ).toBe(401);

    // The pending invitation gives the victim no access; once they accept it through the link mailed
    // to them, its managers see who they work with.
    expect((await victim.api.inWorkspace(attacker.id).get("/api/v1/connectors")).status()).toBe(404);
    const attackerName = (await (await attacker.admin.get(`/api/v1/workspaces/${attacker.id}`)).json()).data.attributes.name;
    await acceptInvitation(request, victim.email, victim.password, { workspace: attackerName });
    expect((await victim.api.inWorkspace(attacker.id).get("/api/v1/users/me")).status()).toBe(200);
    const joined = (await (await attacker.admin.get(`${path}/${victim.userId}`)).json()).data.attributes;
    expect(joined.name).toBe("Viewer member");
    expect(joined.joined_at).toMatch(ISO_TIME);
    expect(joined.last_login_at).toMatch(ISO_TIME);
  });

  test("the last Admin can be neither demoted nor removed (409)", async ({ request }) => {
    const solo = await newWorkspace(request);
    const me = await (await solo.admin.get("/api/v1/users/me")).json();
    const adminId = Number(me.data.id);
    const path = `/api/v1/workspaces/${solo.id}/members/${adminId}`;
    const demote = await expectError(
      await solo.admin.put(path, { member: { role_id: solo.roles.Viewer } }),
      409,
      "conflict",
    );
    expect(demote.message).toMatch(/last Admin of this workspace/);
    await expectError(await solo.admin.delete(path), 409, "conflict");
  });

  test("members endpoints need user.* in that workspace; strangers get 404", async ({ request }) => {
    const member = await memberWithRole(request, ws, "Member");
    const path = `/api/v1/workspaces/${ws.id}/members`;
    await expectError(await member.api.get(path), 403, "forbidden");
    await expectError(
      await member.api.post(path, {
        member: { email: "x@example.com", name: "X", role_id: ws.roles.Viewer },
      }),
      403,
      "forbidden",
    );
    await expectError(
      await member.api.put(`${path}/${member.userId}`, { member: { role_id: ws.roles.Admin } }),
      403,
      "forbidden",
    );
    await expectError(await member.api.delete(`${path}/${member.userId}`), 403, "forbidden");
    const stranger = await memberWithRole(request, await newWorkspace(request), "Admin");
    await expectError(await stranger.api.get(path), 404, "not_found");
    await expectError(await new Api({ token: "x.y.z" }).get(path), 401, "unauthorized");
  });
});
