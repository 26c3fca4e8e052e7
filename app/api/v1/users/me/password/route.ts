// PUT /api/v1/users/me/password - change the signed-in user's password (ends its other sessions).
import { route } from "@/lib/http/handler";
import { clientAddress } from "@/lib/http/forwarded";
import { changePassword } from "@/lib/services/auth";
import { changePasswordSchema } from "@/lib/validation/auth";

export const PUT = route(
  { permission: "user", body: changePasswordSchema },
  async ({ req, auth, body }) => {
    const { token } = await changePassword(auth, body, { ip: clientAddress(req.headers) });
    return { data: { type: "token", id: token, attributes: { token } } };
  },
);
