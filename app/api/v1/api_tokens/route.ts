// GET/POST /api/v1/api_tokens - list API tokens (never the token itself) and create one (shown once).
import { apiTokens } from "@/lib/contract/access";
import { route } from "@/lib/http/handler";
import { pageLinks } from "@/lib/http/pagination";
import { serializeApiToken, serializeCreatedApiToken } from "@/lib/serializers/api-tokens";
import { createApiToken, listApiTokens } from "@/lib/services/accounts/api-tokens";

export const GET = route(apiTokens.listApiTokens, async ({ auth, url, query: { page } }) => {
  const { rows, total } = await listApiTokens(auth, page);
  return { data: rows.map(serializeApiToken), ...pageLinks(url, page, total) };
});

export const POST = route(apiTokens.createApiToken, async ({ auth, body }) => ({
  data: serializeCreatedApiToken(await createApiToken(auth, body.api_token)),
}));
