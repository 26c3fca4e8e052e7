// POST /api/v1/forgot_password - mail a password reset link; the same answer for any address.
import { consoleBase } from "@/lib/config/console-url";
import { accounts } from "@/lib/contract/access";
import { clientAddress } from "@/lib/http/forwarded";
import { route } from "@/lib/http/handler";
import { messageResource } from "@/lib/serializers/accounts";
import { forgotPassword } from "@/lib/services/accounts";

export const POST = route(accounts.forgotPassword, async ({ req, url, body }) => {
  await forgotPassword(body, { ip: clientAddress(req.headers), consoleBase: consoleBase(url) });
  return messageResource("If an account uses this address, a link to reset its password is on its way.");
});
