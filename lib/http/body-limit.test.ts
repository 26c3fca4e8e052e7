// The body limit on a real HTTP server: a client uploading an oversized body, declared or chunked,
// gets its 413 answer (not a reset), and a body within the limit reaches the handler whole.
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { limitBody, MAX_BODY_BYTES } from "./body-limit";

let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((incoming, res) => {
    void limitBody(incoming, res).then(async (req) => {
      if (!req) return;
      let size = 0;
      for await (const chunk of req) size += (chunk as Buffer).length;
      res.end(JSON.stringify({ size }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function send(body: Buffer, chunked: boolean): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, method: "POST", path: "/", headers: chunked ? { "transfer-encoding": "chunked" } : { "content-length": body.length } },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    // In pieces, as a client uploading does: the server answers while the rest is still coming.
    for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.subarray(at, at + 64 * 1024));
    req.end();
  });
}

describe("limitBody", () => {
  it("answers 413 to an oversized body, declared or chunked, after reading it, every time", async () => {
    // Several MB: more than the kernel's socket buffers take at once, so the client is still writing when the answer comes.
    const big = Buffer.alloc(6 * MAX_BODY_BYTES, 120);
    for (let i = 0; i < 10; i++) {
      for (const chunked of [false, true]) {
        const res = await send(big, chunked);
        expect(res.status).toBe(413);
        expect(JSON.parse(res.text)).toMatchObject({ errors: [{ status: "413" }] });
      }
    }
  });

  it("hands a body within the limit to the handler whole", async () => {
    for (const chunked of [false, true]) expect(await send(Buffer.alloc(MAX_BODY_BYTES, 1), chunked)).toEqual({ status: 200, text: JSON.stringify({ size: MAX_BODY_BYTES }) });
  });
});
