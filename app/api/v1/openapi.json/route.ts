// GET /api/v1/openapi.json - the OpenAPI 3.1 document, generated from the operation declarations.
import { service } from "@/lib/contract/service";
import { route } from "@/lib/http/handler";
import { openApiDocument } from "@/lib/openapi/document";

export const GET = route(service.getOpenApiDocument, async () => ({ ...openApiDocument() }));
