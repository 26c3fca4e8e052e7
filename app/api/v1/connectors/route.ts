// GET /api/v1/connectors - list the workspace's connectors; POST - create one.
import { connectors } from "@/lib/contract/connectors";
import { route } from "@/lib/http/handler";
import { pageLinks } from "@/lib/http/pagination";
import { serializeConnector } from "@/lib/serializers/connectors";
import { createConnector, listConnectors } from "@/lib/services/catalogue/connectors";

export const GET = route(connectors.listConnectors, async ({ auth, url, query: { page, ...filters } }) => {
  const { rows, total } = await listConnectors(auth.workspaceId, filters, page);
  return { data: rows.map(serializeConnector), ...pageLinks(url, page, total) };
});

export const POST = route(connectors.createConnector, async ({ auth, body }) => ({
  data: serializeConnector(await createConnector(auth, body.connector)),
}));
