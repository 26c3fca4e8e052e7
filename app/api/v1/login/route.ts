// POST /api/v1/login - exchange email and password for a bearer JWT (throttled per account and address).
import { authentication } from "@/lib/contract/access";
import { clientAddress } from "@/lib/http/forwarded";
import { route } from "@/lib/http/handler";
import { serializeToken } from "@/lib/serializers/auth";
import { login } from "@/lib/services/accounts/auth";

export const POST = route(authentication.login, async ({ req, body }) => {
  const { token } = await login(body, { ip: clientAddress(req.headers) });
  return serializeToken(token);
});
