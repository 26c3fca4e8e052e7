// Outbound HTTP has one home, lib/net (eslint.config.mjs, lint/house-rules.mjs): a client made
// anywhere else fails lint; the same code in lib/net, a call through lib/net, and a server's own
// node:http types pass.
import path from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const RULE = "house/outbound-http-home";

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

async function outboundErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\n`, { filePath: path.join(ROOT, file) });
  return result.messages.filter((m) => m.ruleId === RULE).map((m) => m.message);
}

describe("outbound HTTP lives in lib/net", () => {
  it.each([
    ["lib/connectors/example/api.ts", 'import { request } from "undici";\nexport const x = request;'],
    ["lib/connectors/example/api.ts", 'import { fetch as f } from "undici";\nexport const x = f;'],
    ["lib/engine/webhooks/example.ts", 'export const x = () => fetch("https://example.com/hook");'],
    ["lib/services/notifications/example.ts", 'export const x = () => globalThis.fetch("https://example.com/hook");'],
    ["lib/connectors/example/sdk.ts", 'import https from "node:https";\nexport const x = new https.Agent();'],
    ["lib/connectors/example/sdk.ts", 'import { Agent } from "node:http";\nexport const x = new Agent();'],
    ["lib/connectors/example/sdk.ts", 'import { request } from "node:https";\nexport const x = request;'],
    ["app/api/v1/example/route.ts", 'export const x = async () => (await import("undici")).request;'],
    ["lib/connectors/example/api.ts", 'const { request } = require("node:http");\nexport const x = request;'],
  ])("%s may not `%s`", async (file, code) => {
    expect(await outboundErrors(file, code)).toEqual([expect.stringContaining("Outbound HTTP lives in lib/net")]);
  });

  it.each([
    ["lib/net/example.ts", 'import { request } from "undici";\nexport const x = () => [request, fetch("https://example.com")];'],
    ["lib/connectors/example/api.ts", 'import { sendHttp } from "@/lib/net/http";\nexport const x = sendHttp;'],
    ["lib/connectors/example/sdk.ts", 'import { guardedSdkAgents } from "@/lib/net/sdk-agents";\nexport const x = guardedSdkAgents();'],
    ["lib/http/example.ts", 'import type { IncomingHttpHeaders } from "node:http";\nimport { IncomingMessage } from "node:http";\nexport type X = IncomingHttpHeaders;\nexport const y = IncomingMessage;'],
    ["lib/connectors/example/api.ts", "const fetch = (u: string) => u;\nexport const x = fetch(\"a\");"],
    ["lib/connectors/example/api.ts", 'import type { Dispatcher } from "undici";\nexport type X = Dispatcher;'],
    // The console calls this service's own API.
    ["components/example/form.tsx", 'export const x = () => fetch("/api/v1/setup");'],
    ["lib/connectors/example/example.test.ts", 'import { request } from "undici";\nexport const x = request;'],
  ])("%s may `%s`", async (file, code) => {
    expect(await outboundErrors(file, code)).toEqual([]);
  });
});
