// GET/POST /api/v1/api_tokens - list API tokens (never the token itself) and create one (shown once).
import { route } from "@/lib/http/handler";
import { pageLinks, parsePage } from "@/lib/http/pagination";
import { serializeApiToken, serializeCreatedApiToken } from "@/lib/serializers/api-tokens";
import { createApiToken, listApiTokens } from "@/lib/services/api-tokens";
import { createApiTokenSchema } from "@/lib/validation/api-tokens";

export const GET = route({ permission: ["api_token", "read"] }, async ({ auth, url }) => {
  const page = parsePage(url.searchParams);
  const { rows, total } = await listApiTokens(auth, page);
  return { data: rows.map(serializeApiToken), ...pageLinks(url, page, total) };
});

export const POST = route(
  { permission: ["api_token", "create"], body: createApiTokenSchema },
  async ({ auth, body }) =>
    Response.json(
      { data: serializeCreatedApiToken(await createApiToken(auth, body.api_token)) },
      { status: 201 },
    ),
);
