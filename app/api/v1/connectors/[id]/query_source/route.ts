// POST /api/v1/connectors/{id}/query_source - preview the first rows of a query on a source connector.
import { connectors } from "@/lib/contract/connectors";
import { route } from "@/lib/http/handler";
import { querySource } from "@/lib/services/catalogue/connectors";

export const POST = route(connectors.querySource, async ({ auth, params, body }) => {
  const result = await querySource(auth.workspaceId, params.id, body);
  return { data: result.rows, columns: result.columns };
});
