// A refusal names who is refused and what, in words: a token's own role (not its owner's) when the
// token's role is what refuses, and the action's verb ("run syncs", not "create syncs").
import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { POST as createMember } from "@/app/api/v1/workspaces/[id]/members/route";
import { DELETE as deleteConnector } from "@/app/api/v1/connectors/[id]/route";
import { POST as scheduleSync } from "@/app/api/v1/schedule_syncs/route";
import { signToken } from "@/lib/auth/jwt";
import { prisma } from "@/lib/db/client";
import { createApiToken } from "@/lib/services/accounts/api-tokens";
import { newMember, systemRoleId } from "@/tests/support/auth-fixtures";
import { useTestDatabase } from "@/tests/support/db";

useTestDatabase();

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** The 403's message of `handler` for the bearer `token` (a DELETE when `body` is null). */
async function refusal(handler: Handler, token: string, workspaceId: number, params: Record<string, string> = {}, body: unknown = {}) {
  const res = await handler(
    new NextRequest("http://127.0.0.1/api/v1/x", {
      method: body === null ? "DELETE" : "POST",
      headers: { authorization: `Bearer ${token}`, "workspace-id": String(workspaceId), "content-type": "application/json" },
      body: body === null ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve(params) },
  );
  expect(res.status).toBe(403);
  return ((await res.json()) as { message: string }).message;
}

const session = async (userId: number) => (await signToken({ userId, kind: "session" })).token;

describe("permission refusals", () => {
  it("an Admin's token with the Viewer role: the token's role and the right verb", async () => {
    const { auth, workspaceId } = await newMember("Admin");
    const { token } = await createApiToken(auth, { name: "read only", role_id: await systemRoleId("Viewer") });
    expect(await refusal(scheduleSync, token, workspaceId, {}, { schedule_sync: { sync_id: 1 } })).toBe(
      "This API token has the Viewer role, which may not run syncs.",
    );
    expect(await refusal(deleteConnector as Handler, token, workspaceId, { id: "1" }, null)).toBe(
      "This API token has the Viewer role, which may not delete connectors.",
    );
  });

  it("a token without a role of its own: its owner's role, said as such", async () => {
    const { auth, workspaceId } = await newMember("Viewer");
    const { token } = await createApiToken(auth, { name: "mine" });
    expect(await refusal(scheduleSync, token, workspaceId)).toBe("This API token has its owner's role (Viewer), which may not run syncs.");
  });

  it("a token whose role allows it but whose owner was demoted: the owner's role refuses", async () => {
    const { user, auth, workspaceId } = await newMember("Admin");
    const { token } = await createApiToken(auth, { name: "ops", role_id: await systemRoleId("Member") });
    await prisma().workspaceUser.update({
      where: { workspaceId_userId: { workspaceId, userId: user.id } },
      data: { roleId: await systemRoleId("Viewer") },
    });
    expect(await refusal(scheduleSync, token, workspaceId)).toBe(
      "This API token's owner has the Viewer role in this workspace, which may not run syncs (a token never has more rights than its owner).",
    );
  });

  it("a signed-in Viewer: their role and the verb, also where the service checks the workspace of the path", async () => {
    const { user, workspaceId } = await newMember("Viewer");
    const token = await session(user.id);
    expect(await refusal(scheduleSync, token, workspaceId)).toBe("Your role (Viewer) may not run syncs.");
    const member = { member: { email: "someone@example.com", name: "Someone", role_id: await systemRoleId("Viewer") } };
    expect(await refusal(createMember as Handler, token, workspaceId, { id: String(workspaceId) }, member)).toBe(
      "Your role (Viewer) may not invite members.",
    );
  });
});
