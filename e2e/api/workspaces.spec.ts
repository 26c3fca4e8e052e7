// Workspaces over real HTTP, plus the pagination links contract (on members). The members of a
// workspace: workspace-members.spec.ts.
import { expect, test } from "@playwright/test";
import {
  ISO_TIME,
  adminApi,
  expectError,
  fieldErrors,
  memberWithRole,
  newWorkspace,
  type TestWorkspace,
} from "../support/api";
import { acceptInvitation } from "../support/mailbox";

let ws: TestWorkspace;
test.beforeAll(async ({ request }) => {
  ws = await newWorkspace(request, "Workspaces spec");
});

function expectWorkspace(w: { id: unknown; type: unknown; attributes: Record<string, unknown> }) {
  expect(typeof w.id).toBe("string");
  expect(w.type).toBe("workspaces");
  // Ours, plus the reference serializer's (issue 13; server/app/serializers/workspace_serializer.rb).
  expect(Object.keys(w.attributes).sort()).toEqual([
    "created_at",
    "description",
    "members_count",
    "name",
    "organization_id",
    "organization_logo_url",
    "organization_name",
    "region",
    "role_name",
    "slug",
    "status",
    "updated_at",
    "workspace_logo_url",
  ]);
  expect(typeof w.attributes.name).toBe("string");
  expect(typeof w.attributes.slug).toBe("string");
  expect(typeof w.attributes.members_count).toBe("number");
  expect(w.attributes.created_at).toMatch(ISO_TIME);
  expect(w.attributes.updated_at).toMatch(ISO_TIME);
}

test.describe("workspaces", () => {
  test("POST creates a workspace (201) whose creator is Admin; GET lists the caller's workspaces", async ({
    request,
  }) => {
    const member = await memberWithRole(request, ws, "Admin");
    const res = await member.api.post("/api/v1/workspaces", { workspace: { name: "  Growth team  " } });
    expect(res.status(), await res.text()).toBe(201);
    const created = (await res.json()).data;
    expectWorkspace(created);
    expect(created.attributes).toMatchObject({ name: "Growth team", role_name: "Admin", members_count: 1 });
    const list = await (await member.api.get("/api/v1/workspaces")).json();
    expect(Object.keys(list).sort()).toEqual(["data", "links", "meta"]);
    list.data.forEach(expectWorkspace);
    expect(list.data.map((w: { id: string }) => Number(w.id))).toEqual([ws.id, Number(created.id)]);
    expect(list.meta).toEqual({ page: 1, per_page: 25, total_count: 2, total_pages: 1 });
    const one = await (await member.api.get(`/api/v1/workspaces/${created.id}`)).json();
    expect(one.data.attributes.name).toBe("Growth team");
  });

  test("validation and unknown ids", async () => {
    const body = await expectError(
      await ws.admin.post("/api/v1/workspaces", { workspace: { name: "" } }),
      422,
      "validation_failed",
    );
    expect(fieldErrors(body)).toEqual([{ path: "workspace.name", message: "must not be empty" }]);
    // A flat body is the reference console's way (issue 13): a missing name is still a 422.
    await expectError(await ws.admin.post("/api/v1/workspaces", { title: "flat" }), 422, "validation_failed");
    await expectError(await ws.admin.get("/api/v1/workspaces/abc"), 400, "bad_request");
    await expectError(await ws.admin.get("/api/v1/workspaces/0"), 400, "bad_request");
    const missing = await expectError(await ws.admin.get("/api/v1/workspaces/99999999"), 404, "not_found");
    expect(missing.message).toBe("Workspace 99999999 was not found.");
  });

  test("PUT renames; a workspace the caller is not a member of is 404, a Member's is 403", async ({
    request,
  }) => {
    const res = await ws.admin.put(`/api/v1/workspaces/${ws.id}`, {
      workspace: { name: "Workspaces spec renamed" },
    });
    expect(res.status(), await res.text()).toBe(200);
    expect((await res.json()).data.attributes.name).toBe("Workspaces spec renamed");
    const stranger = await memberWithRole(request, await newWorkspace(request), "Admin");
    await expectError(
      await stranger.api.put(`/api/v1/workspaces/${ws.id}`, { workspace: { name: "x" } }),
      404,
      "not_found",
    );
    await expectError(await stranger.api.get(`/api/v1/workspaces/${ws.id}`), 404, "not_found");
    const member = await memberWithRole(request, ws, "Member");
    await expectError(
      await member.api.put(`/api/v1/workspaces/${ws.id}`, { workspace: { name: "x" } }),
      403,
      "forbidden",
    );
    await expectError(await member.api.delete(`/api/v1/workspaces/${ws.id}`), 403, "forbidden");
    expect((await member.api.get(`/api/v1/workspaces/${ws.id}`)).status()).toBe(200);
  });

  test("the permission is checked in the workspace of the path, not the Workspace-Id one", async ({
    request,
  }) => {
    const viewer = await memberWithRole(request, ws, "Viewer");
    // The viewer creates and administers a second workspace, and works from there.
    const own = await viewer.api.post("/api/v1/workspaces", { workspace: { name: "Viewer's own" } });
    expect(own.status(), await own.text()).toBe(403); // Viewer may not create workspaces from here
    const root = await adminApi(request);
    const second = Number(
      (await (await root.post("/api/v1/workspaces", { workspace: { name: "Second" } })).json()).data.id,
    );
    const inSecond = root.inWorkspace(second);
    const add = await inSecond.post(`/api/v1/workspaces/${second}/members`, {
      member: { email: viewer.email, name: "Viewer", role_id: ws.roles.Admin },
    });
    expect(add.status(), await add.text()).toBe(201);
    await acceptInvitation(request, viewer.email, viewer.password, { workspace: "Second" });
    const fromSecond = viewer.api.inWorkspace(second);
    await expectError(
      await fromSecond.put(`/api/v1/workspaces/${ws.id}`, { workspace: { name: "x" } }),
      403,
      "forbidden",
    );
    expect(
      (await fromSecond.put(`/api/v1/workspaces/${second}`, { workspace: { name: "Second!" } })).status(),
    ).toBe(200);
  });

  test("DELETE removes the workspace (204); the caller's last workspace is 409", async ({ request }) => {
    const root = await adminApi(request);
    const doomed = Number(
      (await (await root.post("/api/v1/workspaces", { workspace: { name: "Doomed" } })).json()).data.id,
    );
    const del = await root.delete(`/api/v1/workspaces/${doomed}`);
    expect(del.status(), await del.text()).toBe(204);
    await expectError(await root.get(`/api/v1/workspaces/${doomed}`), 404, "not_found");
    // A fresh Admin whose only workspace this is.
    const lonely = await memberWithRole(request, await newWorkspace(request), "Admin");
    const me = await (await lonely.api.get("/api/v1/users/me")).json();
    const only = me.data.attributes.workspace_id;
    const body = await expectError(await lonely.api.delete(`/api/v1/workspaces/${only}`), 409, "conflict");
    expect(body.message).toMatch(/is your last workspace and cannot be deleted/);
  });
});

test.describe("pagination links", () => {
  let pws: TestWorkspace;
  let base: string;
  test.beforeAll(async ({ request }) => {
    pws = await newWorkspace(request, "Pagination");
    for (let i = 0; i < 4; i++) await memberWithRole(request, pws, "Viewer"); // 5 members with the admin
    base = `/api/v1/workspaces/${pws.id}/members`;
  });

  const page = async (query: string) => {
    const res = await pws.admin.get(`${base}${query}`);
    expect(res.status(), await res.text()).toBe(200);
    return res.json();
  };
  const pageOf = (link: string | null) =>
    link === null ? null : Number(new URL(link).searchParams.get("page"));

  test("first page: prev null, next and last set, absolute URLs, meta", async () => {
    const body = await page("?per_page=2");
    expect(body.data).toHaveLength(2);
    expect(Object.keys(body.links).sort()).toEqual(["first", "last", "next", "prev", "self"]);
    const self = new URL(body.links.self);
    expect(self.pathname).toBe(base);
    expect(Object.fromEntries(self.searchParams)).toEqual({ page: "1", per_page: "2" });
    expect(body.links.prev).toBeNull();
    expect([pageOf(body.links.first), pageOf(body.links.next), pageOf(body.links.last)]).toEqual([1, 2, 3]);
    expect(body.meta).toEqual({ page: 1, per_page: 2, total_count: 5, total_pages: 3 });
  });

  test("middle and last page; page[number]/page[size] aliases; other params kept", async () => {
    const middle = await page("?page[number]=2&page[size]=2&keep=me");
    expect([pageOf(middle.links.prev), pageOf(middle.links.next)]).toEqual([1, 3]);
    expect(new URL(middle.links.next).searchParams.get("keep")).toBe("me");
    expect(new URL(middle.links.next).searchParams.get("per_page")).toBe("2");
    const last = await page("?page=3&per_page=2");
    expect(last.data).toHaveLength(1);
    expect(last.links.next).toBeNull();
    expect(pageOf(last.links.prev)).toBe(2);
  });

  test("page beyond the end is empty; per_page is clamped to 100; default is 25", async () => {
    const beyond = await page("?page=9&per_page=2");
    expect(beyond.data).toEqual([]);
    expect(beyond.links.next).toBeNull();
    expect(pageOf(beyond.links.prev)).toBe(3);
    expect(pageOf(beyond.links.last)).toBe(3);
    expect((await page("?per_page=1000")).meta.per_page).toBe(100);
    expect((await page("")).meta.per_page).toBe(25);
  });

  test("0, negative and non-integer page values are 400", async () => {
    for (const q of ["?page=0", "?page=-1", "?page=1.5", "?per_page=abc", "?page[size]=0", "?per_page=-3"]) {
      await expectError(await pws.admin.get(`${base}${q}`), 400, "bad_request");
    }
  });
});
