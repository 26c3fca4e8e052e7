// Held header flushes on a real HTTP server: headers flushed then followed by the body leave with
// it in one socket write, and headers flushed ahead of a body that comes later still reach the
// client before it (a streaming answer keeps its early start).
import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coalesceHeaderFlush } from "./header-flush";

let server: Server;
let port: number;
let handler: (res: ServerResponse) => void;

beforeAll(async () => {
  server = createServer((_req, res) => {
    coalesceHeaderFlush(res);
    handler(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function fetchRaw(onHeaders?: (res: IncomingMessage) => void): Promise<{ status: number; type: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    get({ host: "127.0.0.1", port, path: "/" }, (res) => {
      onHeaders?.(res);
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"], text }));
    }).on("error", reject);
  });
}

/** Socket writes of one response: each call of the socket's write paths (writev coalesces corked writes). */
function countWrites(res: ServerResponse): () => number {
  const socket = res.socket as unknown as { _writeGeneric: (...args: unknown[]) => unknown };
  const original = socket._writeGeneric.bind(socket);
  let writes = 0;
  socket._writeGeneric = (...args: unknown[]) => {
    writes++;
    return original(...args);
  };
  return () => writes;
}

describe("coalesceHeaderFlush", () => {
  it("sends flushed headers with the body that follows, in one write", async () => {
    let writes = () => 0;
    handler = (res) => {
      writes = countWrites(res);
      res.statusCode = 201;
      res.setHeader("content-type", "application/json");
      res.flushHeaders();
      res.write('{"a":');
      res.end("1}");
    };
    expect(await fetchRaw()).toEqual({ status: 201, type: "application/json", text: '{"a":1}' });
    expect(writes()).toBe(1);
  });

  it("still sends headers flushed ahead of a body that comes later", async () => {
    let release = () => {};
    handler = (res) => {
      res.setHeader("content-type", "text/plain");
      res.flushHeaders();
      // The body waits for the client to have seen the headers: without them this never ends.
      release = () => res.end("later");
    };
    expect(await fetchRaw(() => release())).toEqual({ status: 200, type: "text/plain", text: "later" });
  });
});
