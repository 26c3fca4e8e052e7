// POST /api/v1/reset_password - set a new password with the token of a reset link; every session ends
// and every API token of the account is revoked.
import { accounts } from "@/lib/contract/access";
import { clientAddress } from "@/lib/http/forwarded";
import { route } from "@/lib/http/handler";
import { messageResource } from "@/lib/serializers/accounts";
import { resetPassword } from "@/lib/services/accounts/accounts";

export const POST = route(accounts.resetPassword, async ({ req, body }) => {
  return messageResource(await resetPassword(body, { ip: clientAddress(req.headers) }));
});
