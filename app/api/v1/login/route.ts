// POST /api/v1/login - exchange email and password for a bearer JWT.
import { route } from "@/lib/http/handler";
import { login } from "@/lib/services/auth";
import { loginSchema } from "@/lib/validation/auth";

export const POST = route({ permission: "public", body: loginSchema }, async ({ body }) => {
  const { token } = await login(body);
  return { data: { type: "token", id: token, attributes: { token } } };
});
