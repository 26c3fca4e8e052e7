// PUT /api/v1/users/me/password - change the signed-in user's password (ends its other sessions and
// revokes its API tokens).
import { authentication } from "@/lib/contract/access";
import { clientAddress } from "@/lib/http/forwarded";
import { route } from "@/lib/http/handler";
import { serializePasswordChanged } from "@/lib/serializers/auth";
import { changePassword } from "@/lib/services/accounts/auth";

export const PUT = route(authentication.changePassword, async ({ req, auth, body }) => {
  const { token, message } = await changePassword(auth, body, { ip: clientAddress(req.headers) });
  return serializePasswordChanged(token, message);
});
