// Attacks on passwords, performed over real HTTP: common and trivial passwords refused wherever an
// account gets one, and password change (old sessions end, guessing the current one is throttled).
// Sign-in throttling and the edges of the HTTP server: security-auth.spec.ts.
import { expect, test } from "@playwright/test";
import {
  Api,
  apiTokenFor,
  clientAddress as address,
  expectError,
  fieldErrors,
  loginAs,
  memberWithRole,
  newWorkspace,
  uniqueSuffix,
  type TestWorkspace,
} from "../support/api";
import { invitationFor } from "../support/mailbox";

let ws: TestWorkspace;
test.beforeAll(async ({ request }) => {
  ws = await newWorkspace(request);
});

test("a common password is refused wherever an account gets one", async ({ request }) => {
  // An invited person chooses theirs when accepting the invitation.
  const email = `common-${uniqueSuffix()}@example.com`;
  const invited = await ws.admin.post(`/api/v1/workspaces/${ws.id}/members`, {
    member: { email, name: "Common", role_id: ws.roles.Viewer },
  });
  expect(invited.status(), await invited.text()).toBe(201);
  const { token } = await invitationFor(email);
  const res = await request.post("/api/v1/accept_invitation", {
    headers: { "X-Forwarded-For": "198.51.100.77" },
    data: { invitation_token: token, password: "Password123", password_confirmation: "Password123" },
  });
  const body = await expectError(res, 422, "validation_failed");
  expect(fieldErrors(body)).toEqual([{ path: "password", message: expect.stringMatching(/^is too easy to guess .*; make it stronger/) }]);
});

test("passwords a strength estimator scores as trivial are refused on password change and on accepting an invitation, saying what would help", async ({ request }) => {
  const member = await memberWithRole(request, ws, "Member");
  for (const [weak, why] of [
    ["aaaaaaaa", /repeats one character/],
    ["12345678", /ten most used passwords/],
    ["12341234", /repeats a short group/],
    ["abcdefgh", /is a sequence/],
    ["qwertyuiop", /hundred most used/],
    ["asdfghjkl;", /row of keys on the keyboard/],
    ["1qaz2wsx3edc", /commonly used password/],
  ] as const) {
    const changed = await expectError(await member.api.put("/api/v1/users/me/password", { current_password: member.password, password: weak }), 422, "validation_failed");
    expect(fieldErrors(changed), weak).toEqual([{ path: "password", message: expect.stringMatching(why) }]);
    expect(fieldErrors(changed)[0].message).toMatch(/; make it stronger with a few uncommon words or a longer mix of characters/);
    // An invited person chooses their password when accepting the invitation.
    const email = `weak-${uniqueSuffix()}@example.com`;
    const invited = await ws.admin.post(`/api/v1/workspaces/${ws.id}/members`, { member: { email, name: "Weak", role_id: ws.roles.Viewer } });
    expect(invited.status(), await invited.text()).toBe(201);
    const { token } = await invitationFor(email);
    const accepted = await request.post("/api/v1/accept_invitation", {
      headers: { "X-Forwarded-For": "198.51.100.78" },
      data: { invitation_token: token, password: weak, password_confirmation: weak },
    });
    expect(fieldErrors(await expectError(accepted, 422, "validation_failed")), weak).toEqual([{ path: "password", message: expect.stringMatching(why) }]);
  }
  // Nothing changed: the member's password still signs in.
  expect((await request.post("/api/v1/login", { data: { email: member.email, password: member.password } })).status()).toBe(200);
});

test.describe("PUT /api/v1/users/me/password", () => {
  test("changes the password: the old one and every earlier session stop working", async ({ request }) => {
    const member = await memberWithRole(request, ws, "Member");
    const other = new Api({
      token: await loginAs(request, member.email, member.password),
      workspaceId: ws.id,
    });
    const newPassword = `changed-${uniqueSuffix()}-pw`;
    // Every refusal first: none of them changes anything.
    let res = await member.api.put("/api/v1/users/me/password", {
      current_password: "not-it-at-all",
      password: newPassword,
    });
    expect(fieldErrors(await expectError(res, 422, "validation_failed"))).toEqual([
      { path: "current_password", message: "is not your current password" },
    ]);
    res = await member.api.put("/api/v1/users/me/password", {
      current_password: member.password,
      password: "iloveyou1",
    });
    expect(fieldErrors(await expectError(res, 422, "validation_failed"))).toEqual([
      { path: "password", message: expect.stringMatching(/^is too easy to guess .*; make it stronger/) },
    ]);
    await expectError(
      await member.api.put("/api/v1/users/me/password", {
        current_password: member.password,
        password: "short",
      }),
      422,
      "validation_failed",
    );
    const token = await apiTokenFor(request, member.api);
    await expectError(
      await token.api.put("/api/v1/users/me/password", {
        current_password: member.password,
        password: newPassword,
      }),
      403,
      "forbidden",
    );

    res = await member.api.put("/api/v1/users/me/password", {
      current_password: member.password,
      password: newPassword,
    });
    expect(res.status(), await res.text()).toBe(200);
    const fresh = new Api({ token: (await res.json()).data.attributes.token, workspaceId: ws.id });
    expect((await fresh.get("/api/v1/users/me")).status()).toBe(200);
    await expectError(await member.api.get("/api/v1/users/me"), 401, "unauthorized");
    await expectError(await other.get("/api/v1/users/me"), 401, "unauthorized");
    await expectError(
      await request.post("/api/v1/login", { data: { email: member.email, password: member.password } }),
      401,
      "unauthorized",
    );
    expect(await loginAs(request, member.email, newPassword)).toMatch(/\./);
  });

  test("guessing the current password is throttled like sign-in", async ({ request }) => {
    const member = await memberWithRole(request, ws, "Member");
    const from = address();
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await request.put("/api/v1/users/me/password", {
        headers: { Authorization: `Bearer ${member.api.session.token}`, "X-Forwarded-For": from },
        data: { current_password: `guess-${i}`, password: `new-${uniqueSuffix()}-pw` },
      });
      statuses.push(res.status());
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(422));
    expect(statuses.slice(10)).toEqual([429, 429]);
  });
});
