// Forwarded headers on a second server started without TRUST_PROXY (the main test server trusts
// them): X-Forwarded-Host/-Proto are not reflected into links, and a claimed X-Forwarded-For neither
// spends another address's sign-in budget nor escapes its own.
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { ADMIN, uniqueSuffix } from "../support/api";
import { startSecondServer, type SecondServer } from "../support/second-server";

test.describe("a server without TRUST_PROXY", () => {
  let server: SecondServer | undefined;

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    server = await startSecondServer({ env: { TRUST_PROXY: "0" }, dataDir: ".data/e2e-untrusted", waitSeconds: 220 });
  });
  test.afterAll(() => {
    server?.stop();
  });

  test("X-Forwarded-Host and -Proto are not reflected into pagination links", async () => {
    const ctx = await playwrightRequest.newContext({ baseURL: server!.base });
    try {
      const login = await ctx.post("/api/v1/login", { data: ADMIN });
      const token = (await login.json()).data.attributes.token as string;
      const res = await ctx.get("/api/v1/syncs?per_page=1", {
        headers: {
          Authorization: `Bearer ${token}`,
          "X-Forwarded-Host": "evil.example",
          "X-Forwarded-Proto": "https",
        },
      });
      expect(res.status()).toBe(200);
      const { links } = await res.json();
      for (const link of [links.self, links.first, links.last])
        expect(link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${server!.port}/`));
      expect(JSON.stringify(links)).not.toContain("evil.example");
    } finally {
      await ctx.dispose();
    }
  });

  test("a claimed X-Forwarded-For neither spends another address's budget nor escapes its own", async () => {
    const ctx = await playwrightRequest.newContext({ baseURL: server!.base });
    try {
      const email = `nobody-${uniqueSuffix()}@example.com`;
      const statuses: number[] = [];
      // Each claims a different address; all come from 127.0.0.1, so they share one budget.
      for (let i = 0; i < 11; i++) {
        const res = await ctx.post("/api/v1/login", {
          data: { email, password: "guess-guess" },
          headers: { "X-Forwarded-For": `203.0.113.${i + 1}` },
        });
        statuses.push(res.status());
      }
      expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
      expect(statuses[10]).toBe(429);
    } finally {
      await ctx.dispose();
    }
  });
});
