// POST /api/v1/config/apply - applies a configuration document (YAML or JSON) in one transaction.
import { config } from "@/lib/contract/config";
import { route } from "@/lib/http/handler";
import { applyConfig } from "@/lib/services/config-as-code/config";

export const POST = route(config.applyConfig, async ({ auth, body }) => applyConfig(auth, body));
