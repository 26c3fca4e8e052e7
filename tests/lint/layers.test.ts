// The layer rules of eslint.config.mjs, proven on small snippets: each forbidden import fails lint,
// and the allowed neighbour of each passes (so a rule that matched everything would fail too).
import path from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const LAYER_RULES = new Set(["import/no-restricted-paths", "@typescript-eslint/no-restricted-imports"]);

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

/** The layer rules that `code` breaks when it sits at `file` (relative to the repository). */
async function layerErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport const used = [x];\n`, { filePath: path.join(ROOT, file) });
  return result.messages.filter((m) => m.ruleId && LAYER_RULES.has(m.ruleId)).map((m) => `${m.ruleId}: ${m.message}`);
}

describe("layer rules", () => {
  it.each([
    ["components/syncs/example.tsx", 'import { prisma as x } from "@/lib/db/client";', "import/no-restricted-paths"],
    ["components/syncs/example.tsx", 'import { listSyncs as x } from "@/lib/services/syncs/syncs";', "import/no-restricted-paths"],
    ["components/syncs/example.tsx", 'import { triggerSync as x } from "@/lib/engine";', "import/no-restricted-paths"],
    ["app/(console)/syncs/page.tsx", 'import { startEngine as x } from "@/lib/engine";', "import/no-restricted-paths"],
    ["lib/api-client/example.ts", 'import { Badge as x } from "@/components/ui/badge";', "import/no-restricted-paths"],
    ["lib/api-client/example.ts", 'import { encryptJson as x } from "@/lib/crypto/encryption";', "import/no-restricted-paths"],
    ["lib/connectors/example.ts", 'import { enqueueRun as x } from "@/lib/engine/queue";', "import/no-restricted-paths"],
    ["lib/connectors/mariadb/example.ts", 'import { route as x } from "../../http/handler";', "import/no-restricted-paths"],
    ["lib/connectors/example.ts", 'import { listSyncs as x } from "@/lib/services/syncs/syncs";', "import/no-restricted-paths"],
    ["lib/connectors/example.ts", 'import { pgPool as x } from "@/lib/db/client";', "import/no-restricted-paths"],
    // lib/net (the outbound guard and HTTP client) is below its users.
    ["lib/net/example.ts", 'import { ConnectorError as x } from "../connectors/shared/errors";', "import/no-restricted-paths"],
    ["lib/net/example.ts", 'import { deliverWebhook as x } from "@/lib/engine";', "import/no-restricted-paths"],
    ["lib/serializers/example.ts", 'import { Prisma as x } from "@/lib/generated/prisma/client";', "@typescript-eslint/no-restricted-imports"],
    ["lib/validation/example.ts", 'import { pgPool as x } from "../db/client";', "@typescript-eslint/no-restricted-imports"],
    ["app/api/v1/example/route.ts", 'import { prisma as x } from "@/lib/db/client";', "@typescript-eslint/no-restricted-imports"],
    ["lib/http/example.ts", 'import { PrismaClient as x } from "@prisma/client";', "@typescript-eslint/no-restricted-imports"],
    // The engine imports no service (it publishes run events; lib/services/run-events.ts subscribes).
    ["lib/engine/example.ts", 'import { listSyncs as x } from "@/lib/services/syncs/syncs";', "import/no-restricted-paths"],
    ["lib/engine/webhooks/example.ts", 'import { alertsOnRunEnded as x } from "../../services/notifications/alerts/queue";', "import/no-restricted-paths"],
    // Outside lib/engine, only its entrance (lib/engine/index.ts).
    ["lib/services/example.ts", 'import { withTransaction as x } from "@/lib/engine/transaction";', "import/no-restricted-paths"],
    ["lib/serializers/example.ts", 'import { recordLogs as x } from "../engine/record-logs";', "import/no-restricted-paths"],
    ["app/api/v1/example/route.ts", 'import { enqueueRun as x } from "@/lib/engine/queue";', "import/no-restricted-paths"],
    ["scripts/example.ts", 'import { startWorker as x } from "../lib/engine/worker";', "import/no-restricted-paths"],
  ])("%s may not `%s` (%s)", async (file, code, rule) => {
    expect(await layerErrors(file, code)).toContainEqual(expect.stringMatching(`^${rule}: `));
  });

  it.each([
    ["lib/services/example.ts", 'import { prisma as x } from "@/lib/db/client";'],
    ["lib/engine/example.ts", 'import { enqueueRun as x } from "./queue";'],
    ["lib/services/example.ts", 'import { withTransaction as x } from "@/lib/engine";'],
    ["lib/services/example.ts", 'import { triggerSync as x } from "@/lib/engine/index";'],
    ["scripts/example.ts", 'import { stopEngine as x } from "../lib/engine";'],
    // Tests may reach inside the engine (the unit they test, its fixtures).
    ["lib/services/example.test.ts", 'import { reloadRun as x } from "@/lib/engine/test-support";'],
    ["app/api/v1/example/route.ts", 'import { listSyncs as x } from "@/lib/services/syncs/syncs";'],
    ["components/syncs/example.tsx", 'import { previewMapping as x } from "@/lib/sync-rules/mapping";'],
    ["components/syncs/example.tsx", 'import type { SyncAttributes as x } from "@/lib/api-client/types";'],
    ["lib/serializers/example.ts", 'import type { SyncRun as x } from "@/lib/generated/prisma/client";'],
    ["lib/sync-rules/example.ts", 'import { SyncStatus as x } from "@/lib/generated/prisma/enums";'],
    ["lib/connectors/example.ts", 'import { ConnectorError as x } from "./shared/errors";'],
    ["lib/connectors/example.ts", 'import { sendHttp as x } from "@/lib/net/http";'],
    ["lib/engine/webhooks/example.ts", 'import { sendHttp as x } from "@/lib/net/http";'],
    ["lib/connectors/postgresql/example.ts", 'import { copyOutLines as x } from "@/lib/db/pg-wire/copy-out";'],
    ["lib/connectors/example.test.ts", 'import { prisma as x } from "@/lib/db/client";'],
  ])("%s may `%s`", async (file, code) => {
    expect(await layerErrors(file, code)).toEqual([]);
  });
});
