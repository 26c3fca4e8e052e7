// What the AI model source tests share: the emulator (tests/emulators/ai-models.ts) started with
// known credentials, and reading input rows through a source as a run does.
import { generateKeyPairSync } from "node:crypto";
import type { Row, SourceConnector } from "@/lib/connectors/types";
import { startAiModelsEmulator } from "../emulators/ai-models";

const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });

export const AI_CREDENTIALS = {
  anthropicKey: "sk-ant-test-4f1d9c",
  openAiKey: "sk-test-generic-77a1",
  databricksToken: "dapi-test-0b5e",
  ibmApiKey: "ibm-apikey-test-93c2",
  google: {
    clientEmail: "datasync@acme-ml.iam.gserviceaccount.com",
    publicKey: keys.publicKey.export({ type: "spki", format: "pem" }).toString(),
    privateKey: keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  },
  aws: { accessKeyId: "AKIAEMULATOR0001", secretAccessKey: "emulator/secret/key/0001", region: "us-east-1" },
};

export function startAiModels() {
  return startAiModelsEmulator(AI_CREDENTIALS);
}

/** Every row a read yields, its batches flattened, as a run's extract stage takes them. */
export async function readAll(source: SourceConnector, config: Row, inputs: Row[], batchSize = 2): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const batch of source.read(config, { query: JSON.stringify(inputs), batchSize })) rows.push(...batch);
  return rows;
}
