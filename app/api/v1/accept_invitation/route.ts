// POST /api/v1/accept_invitation - accept a workspace invitation with the token of its link; a new
// account chooses its password here.
import { accounts } from "@/lib/contract/access";
import { clientAddress } from "@/lib/http/forwarded";
import { route } from "@/lib/http/handler";
import { messageResource } from "@/lib/serializers/accounts";
import { acceptInvitation } from "@/lib/services/accounts/invitations";

export const POST = route(accounts.acceptInvitation, async ({ req, body }) =>
  messageResource(await acceptInvitation(body, { ip: clientAddress(req.headers) })),
);
