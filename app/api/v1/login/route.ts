// POST /api/v1/login - exchange email and password for a bearer JWT (throttled per account and address).
import { route } from "@/lib/http/handler";
import { login } from "@/lib/services/auth";
import { clientAddress } from "@/lib/http/forwarded";
import { loginSchema } from "@/lib/validation/auth";

export const POST = route({ permission: "public", body: loginSchema }, async ({ req, body }) => {
  const { token } = await login(body, { ip: clientAddress(req.headers) });
  return { data: { type: "token", id: token, attributes: { token } } };
});
