// DELETE /api/v1/api_tokens/{id} - revoke an API token; it stops working at once.
import { apiTokens } from "@/lib/contract/access";
import { route } from "@/lib/http/handler";
import { revokeApiToken } from "@/lib/services/accounts/api-tokens";

export const DELETE = route(apiTokens.revokeApiToken, async ({ auth, params }) => {
  await revokeApiToken(auth, params.id);
});
