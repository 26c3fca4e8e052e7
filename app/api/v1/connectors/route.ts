// GET /api/v1/connectors - list the workspace's connectors; POST - create one.
import { route } from "@/lib/http/handler";
import { pageLinks, parsePage } from "@/lib/http/pagination";
import { serializeConnector } from "@/lib/serializers/connectors";
import { createConnector, listConnectors } from "@/lib/services/connectors";
import { createConnectorSchema, listConnectorsQuerySchema } from "@/lib/validation/connectors";

export const GET = route({ permission: ["connector", "read"], query: listConnectorsQuerySchema }, async ({ auth, url, query }) => {
  const page = parsePage(url.searchParams);
  const { rows, total } = await listConnectors(auth.workspaceId, query, page);
  return { data: rows.map(serializeConnector), ...pageLinks(url, page, total) };
});

export const POST = route({ permission: ["connector", "create"], body: createConnectorSchema }, async ({ auth, body }) =>
  Response.json({ data: serializeConnector(await createConnector(auth, body.connector)) }, { status: 201 }),
);
