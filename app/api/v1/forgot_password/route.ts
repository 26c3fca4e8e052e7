// POST /api/v1/forgot_password - mail a password reset link (or, without SMTP, send the person to an
// administrator); the same answer for any address.
import { consoleBase } from "@/lib/settings/console-url";
import { accounts } from "@/lib/contract/access";
import { clientAddress } from "@/lib/http/forwarded";
import { route } from "@/lib/http/handler";
import { messageResource } from "@/lib/serializers/accounts";
import { forgotPassword } from "@/lib/services/accounts/accounts";

export const POST = route(accounts.forgotPassword, async ({ req, url, body }) => {
  return messageResource(await forgotPassword(body, { ip: clientAddress(req.headers), consoleBase: consoleBase(url) }));
});
