// A real S3-protocol server for tests: s3rver (npm), on a free loopback port, storing its buckets in
// a temporary directory removed on stop. It checks request signatures against its one account
// (access key S3RVER, secret S3RVER), so bad credentials fail as they would on S3.
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./free-port";

interface S3rverInstance {
  run(): Promise<unknown>;
  close(): Promise<void>;
}
type S3rverClass = new (options: {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  configureBuckets: { name: string }[];
}) => S3rverInstance;

export const S3_ACCESS_KEY = "S3RVER";
export const S3_SECRET_KEY = "S3RVER";

export interface S3TestServer {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

export async function startS3Server(buckets: string[]): Promise<S3TestServer> {
  // Resolved from the project root: Playwright and vitest load this file under different module systems.
  const S3rver = createRequire(path.join(process.cwd(), "package.json"))("s3rver") as S3rverClass;
  const directory = await mkdtemp(path.join(tmpdir(), "ds-s3rver-"));
  const port = await freePort();
  const server = new S3rver({
    address: "127.0.0.1",
    port,
    directory,
    silent: true,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    stop: async () => {
      await server.close().catch(() => undefined);
      await rm(directory, { recursive: true, force: true });
    },
  };
}
