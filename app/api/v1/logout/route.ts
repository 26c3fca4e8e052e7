// DELETE /api/v1/logout - revoke the session token of this request (a user-level call: any
// Workspace-Id header works).
import { authentication } from "@/lib/contract/access";
import { route } from "@/lib/http/handler";
import { messageResource } from "@/lib/serializers/accounts";
import { logout } from "@/lib/services/accounts/auth";

const SIGNED_OUT = "Signed out.";

export const DELETE = route(authentication.logout, async ({ auth }) => {
  await logout(auth);
  // `data` as the reference answers it (a message resource); `message` is this API's own member.
  return { ...messageResource(SIGNED_OUT), message: SIGNED_OUT };
});
