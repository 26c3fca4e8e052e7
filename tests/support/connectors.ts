// Helpers for the connector tests: local HTTP servers, streams, free ports (never used by production code).
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Stream } from "@/lib/connectors/types";

export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(4).toString("hex")}`;
}

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A real HTTP server on 127.0.0.1 with a swappable handler, recording every request. */
export async function startHttpServer(
  handler: (req: ReceivedRequest, res: ServerResponse) => void | Promise<void> = (_req, res) => {
    res.end("ok");
  },
): Promise<{
  url: string;
  requests: ReceivedRequest[];
  setHandler(next: typeof handler): void;
  close(): Promise<void>;
}> {
  let current = handler;
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const received = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      requests.push(received);
      void Promise.resolve(current(received, res)).catch(() => res.destroy());
    });
  });
  // A request sent on an idle connection as the server closes it fails with ECONNRESET. undici drops
  // an idle connection a second before the server's Keep-Alive timeout, a margin a loaded machine
  // can miss: with 60 s instead of Node's 5, no test idles that long between two requests.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setHandler: (next) => {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export function streamFor(name: string, extra: Partial<Stream> = {}): Stream {
  return { name, url: name, json_schema: {}, batch_support: true, batch_size: 1000, request_method: "POST", ...extra };
}

/** A free TCP port that nothing listens on (connection refused). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
