// POST /api/v1/resend_verification - mail a new verification link; the same answer for any address
// (one that says so when this server sends no mail).
import { consoleBase } from "@/lib/settings/console-url";
import { accounts } from "@/lib/contract/access";
import { clientAddress } from "@/lib/http/forwarded";
import { route } from "@/lib/http/handler";
import { messageResource } from "@/lib/serializers/accounts";
import { resendVerification, resendVerificationAnswer } from "@/lib/services/accounts/accounts";

export const POST = route(accounts.resendVerification, async ({ req, url, body }) => {
  await resendVerification(body, { ip: clientAddress(req.headers), consoleBase: consoleBase(url) });
  return messageResource(resendVerificationAnswer());
});
