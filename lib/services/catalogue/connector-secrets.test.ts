// A secret a server repeats in its error must not reach the tenant through the connector endpoints'
// answers (query previews, discovery): the attack is a member previewing a model on a connector an
// admin configured, against an OpenAI-compatible server that echoes the key it was sent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encryptJson } from "@/lib/crypto/encryption";
import { prisma } from "@/lib/db/client";
import { FailedDependency } from "@/lib/errors";
import { newWorkspace } from "@/tests/support/auth-fixtures";
import { useTestDatabase } from "@/tests/support/db";
import { startOpenAiEmulator, type OpenAiEmulator } from "@/tests/support/openai-emulator";
import { querySource } from "./connectors";

useTestDatabase();

const SECRET = "sk-admin-entered-key-4242";
let api: OpenAiEmulator;

beforeAll(async () => {
  api = await startOpenAiEmulator({ apiKey: "sk-the-right-one", echoKeyInErrors: true });
});
afterAll(async () => {
  await api?.close();
});

describe("connector answers never carry a secret field's value", () => {
  it("a query preview's failure masks the API key the server repeated", async () => {
    const workspaceId = await newWorkspace();
    const connector = await prisma().connector.create({
      data: {
        workspaceId,
        connectorType: "source",
        connectorName: "OpenAI",
        name: "llm",
        configurationEncrypted: encryptJson({ base_url: api.url, api_key: SECRET, model: "gpt-test-mini", max_retries: 0 }),
      },
    });
    const failure = await querySource(workspaceId, connector.id, { query: JSON.stringify([{ text: "hi" }]), limit: 5 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(FailedDependency);
    const message = (failure as Error).message;
    // The server did repeat it (so the test can fail), and the answer masks it.
    expect(api.requests.some((r) => r.authorization === `Bearer ${SECRET}`)).toBe(true);
    expect(message).toMatch(/Incorrect API key provided: \*{13}/);
    expect(message).not.toContain(SECRET);
  });
});
