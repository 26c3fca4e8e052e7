// Requests to an /api or /enterprise/api path that no route declares: the one error body with a
// 404, never the console's HTML not-found page (API clients parse the body as JSON).
import { unknownPath } from "@/lib/contract/service";
import { NotFound } from "@/lib/errors";
import { route } from "./handler";

export const unknownApiPath = route(unknownPath, async ({ req, url }) => {
  const path = url.pathname.length > 200 ? `${url.pathname.slice(0, 200)}…` : url.pathname;
  throw new NotFound(`No API endpoint answers ${req.method} ${path}; GET /api/v1/openapi.json lists the endpoints.`);
});
