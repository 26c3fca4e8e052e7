// PUT /api/v1/users/me/password - change the signed-in user's password (ends its other sessions).
import { authentication } from "@/lib/contract/access";
import { clientAddress } from "@/lib/http/forwarded";
import { route } from "@/lib/http/handler";
import { serializeToken } from "@/lib/serializers/auth";
import { changePassword } from "@/lib/services/auth";

export const PUT = route(authentication.changePassword, async ({ req, auth, body }) => {
  const { token } = await changePassword(auth, body, { ip: clientAddress(req.headers) });
  return serializeToken(token);
});
