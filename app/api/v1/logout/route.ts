// DELETE /api/v1/logout - revoke the session token of this request.
import { route } from "@/lib/http/handler";
import { logout } from "@/lib/services/auth";

export const DELETE = route({ permission: "member" }, async ({ auth }) => {
  await logout(auth);
  return { message: "Signed out." };
});
