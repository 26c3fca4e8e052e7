// DELETE /api/v1/logout - revoke the session token of this request (a user-level call: any
// Workspace-Id header works).
import { randomUUID } from "node:crypto";
import { route } from "@/lib/http/handler";
import { logout } from "@/lib/services/auth";

const SIGNED_OUT = "Signed out.";

export const DELETE = route({ permission: "user" }, async ({ auth }) => {
  await logout(auth);
  // `data` as the reference answers it (a message resource); `message` is this API's own member.
  return { data: { type: "message", id: randomUUID(), attributes: { message: SIGNED_OUT } }, message: SIGNED_OUT };
});
