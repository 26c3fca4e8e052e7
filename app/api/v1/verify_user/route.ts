// GET /api/v1/verify_user?confirmation_token= - verify an account's email address with the token of
// its verification link.
import { accounts } from "@/lib/contract/access";
import { clientAddress } from "@/lib/http/forwarded";
import { route } from "@/lib/http/handler";
import { messageResource } from "@/lib/serializers/accounts";
import { verifyUser } from "@/lib/services/accounts/accounts";

export const GET = route(accounts.verifyUser, async ({ req, query }) => {
  await verifyUser(query, { ip: clientAddress(req.headers) });
  return messageResource("Your email address is verified. You can sign in now.");
});
