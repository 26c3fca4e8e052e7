// GET /api/v1/openapi.json - the OpenAPI 3.1 document, generated from the request schemas.
import { route } from "@/lib/http/handler";
import { openApiDocument } from "@/lib/openapi/document";

export const GET = route({ permission: "public" }, async () => openApiDocument());
