// The public client never follows a redirect: the API has none, and following one would carry the
// API token to wherever it points.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPublicApiClient, RedirectRefused } from "./public-client";

const servers: Server[] = [];
const listen = async (handler: Parameters<typeof createServer>[1]): Promise<string> => {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const elsewhere: IncomingHttpHeaders[] = [];
let redirecting = "";
let answering = "";

beforeAll(async () => {
  const target = await listen((req, res) => {
    elsewhere.push(req.headers);
    res.end("{}");
  });
  redirecting = await listen((req, res) => {
    res.writeHead(307, { location: `${target}${req.url}` });
    res.end();
  });
  answering = await listen((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ data: [], authorization: req.headers.authorization }));
  });
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

it("refuses a redirect with a sentence naming it, and sends the token nowhere else", async () => {
  const api = createPublicApiClient({ baseUrl: redirecting, token: "tok-secret" });
  const call = api.GET("/api/v1/syncs", {});
  await expect(call).rejects.toBeInstanceOf(RedirectRefused);
  await expect(api.GET("/api/v1/syncs", {})).rejects.toThrow(/redirect to http:\/\/127\.0\.0\.1:\d+\/api\/v1\/syncs; the token was not sent there/);
  expect(elsewhere).toEqual([]);
});

it("sends the token to the server it was given", async () => {
  const api = createPublicApiClient({ baseUrl: answering, token: "tok-secret" });
  const { data } = await api.GET("/api/v1/syncs", {});
  expect(data).toMatchObject({ authorization: "Bearer tok-secret" });
});
