// DELETE /api/v1/api_tokens/{id} - revoke an API token; it stops working at once.
import { z } from "zod";
import { idParam, noContent, route } from "@/lib/http/handler";
import { revokeApiToken } from "@/lib/services/api-tokens";

export const DELETE = route(
  { permission: ["api_token", "delete"], params: z.object({ id: idParam }) },
  async ({ auth, params }) => {
    await revokeApiToken(auth, params.id);
    return noContent();
  },
);
