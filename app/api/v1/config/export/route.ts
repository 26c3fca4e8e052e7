// GET /api/v1/config/export - the workspace's connectors, models and syncs as YAML (secrets as ${env:NAME}).
import { config } from "@/lib/contract/config";
import { route } from "@/lib/http/handler";
import { exportConfig } from "@/lib/services/config-as-code/config";

export const GET = route(config.exportConfig, async ({ auth, query }) => {
  const yaml = await exportConfig(auth, query.kinds);
  return new Response(yaml, { headers: { "content-type": "application/yaml; charset=utf-8", "cache-control": "no-store" } });
});
