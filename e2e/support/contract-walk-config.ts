// Contract walk steps of the configuration-as-code operations (e2e/api/config-as-code.spec.ts tests them in depth).
import { expectStatus } from "./contract-fixtures";
import type { Steps } from "./contract-walk";

export const CONFIG_STEPS = {
  exportConfig: async (fx) => {
    await fx.syncId();
    await expectStatus((await fx.admin()).GET("/api/v1/config/export", { parseAs: "text" }), 200);
  },
  planConfig: async (fx) => {
    await expectStatus((await fx.admin()).POST("/api/v1/config/plan", { body: { version: 1, models: [] } }), 200);
  },
  applyConfig: async (fx) => {
    await expectStatus((await fx.admin()).POST("/api/v1/config/apply", { body: { version: 1, syncs: [] } }), 200);
  },
} satisfies Steps;
