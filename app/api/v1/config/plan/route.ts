// POST /api/v1/config/plan - what applying a configuration document (YAML or JSON) would change; writes nothing.
import { config } from "@/lib/contract/config";
import { route } from "@/lib/http/handler";
import { planConfig } from "@/lib/services/config-as-code/config";

export const POST = route(config.planConfig, async ({ auth, body }) => planConfig(auth, body));
