// Attacks on sign-in and the edges of the HTTP server, performed over real HTTP: oversized and
// chunked bodies on next-auth's routes, lock-outs a third party could cause, parallel password
// guessing, session tokens without exp, deeply nested JSON, and metrics from afar.
// Common passwords and password change: security-passwords.spec.ts. Forwarded headers on a server
// without TRUST_PROXY: security-untrusted-proxy.spec.ts.
import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { expect, request as playwrightRequest, test, type APIRequestContext } from "@playwright/test";
import { SignJWT } from "jose";
import {
  ADMIN,
  Api,
  BASE_URL,
  clientAddress as address,
  expectError,
  memberWithRole,
  newWorkspace,
  uniqueSuffix,
  type TestWorkspace,
} from "../support/api";

let ws: TestWorkspace;
test.beforeAll(async ({ request }) => {
  ws = await newWorkspace(request);
});

/** A raw request, so the test controls Content-Length and chunking (Playwright always sets a length). */
function rawPost(
  urlPath: string,
  opts: { headers: Record<string, string>; write: (req: http.ClientRequest) => void },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(urlPath, BASE_URL);
    const req = http.request(url, { method: "POST", headers: opts.headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    // The server may close while we still write: the answer it sent first is what counts.
    req.on("error", (err) => reject(err));
    opts.write(req);
  });
}

test.describe("body limit on every route (next-auth included)", () => {
  test("a declared 150 MB body to /api/auth/callback/credentials is 413 before it is sent", async () => {
    const res = await rawPost("/api/auth/callback/credentials", {
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "content-length": String(150 * 1024 * 1024),
      },
      // Only 64 kB of the 150 MB are ever sent: the answer comes without waiting for the rest.
      write: (req) => req.write(Buffer.alloc(64 * 1024, "a")),
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({
      message: "The request body is larger than 1 MB.",
      status: "payload_too_large",
      errors: [{ status: "413", title: "payload_too_large", detail: "The request body is larger than 1 MB." }],
    });
  });

  test("a complete 2 MB form body to /api/auth/callback/credentials is 413", async ({ request }) => {
    const res = await request.post("/api/auth/callback/credentials", {
      form: { email: "a@example.com", password: "x".repeat(2 * 1024 * 1024), csrfToken: "x" },
    });
    await expectError(res, 413, "payload_too_large");
  });

  test("a chunked body (no Content-Length) is counted as it streams and refused past 1 MB", async () => {
    const res = await rawPost("/api/auth/callback/credentials", {
      headers: { "content-type": "application/x-www-form-urlencoded", "transfer-encoding": "chunked" },
      write: (req) => {
        for (let i = 0; i < 40; i++) req.write(Buffer.alloc(64 * 1024, "a"));
        req.end();
      },
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).status).toBe("payload_too_large");
  });

  test("a chunked body within the limit still reaches the route intact", async () => {
    const body = JSON.stringify({ email: ADMIN.email, password: ADMIN.password });
    const res = await rawPost("/api/v1/login", {
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      write: (req) => {
        req.write(body.slice(0, 10));
        req.write(body.slice(10));
        req.end();
      },
    });
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body).data.attributes.token).toMatch(/\./);
  });
});

test.describe("login throttle a third party cannot turn into a lock-out", () => {
  test("an attacker hammering an account from one address does not lock the owner out elsewhere", async ({
    request,
  }) => {
    const victim = await memberWithRole(request, ws, "Viewer");
    const attacker = address();
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      const res = await request.post("/api/v1/login", {
        data: { email: victim.email, password: `guess-${i}` },
        headers: { "X-Forwarded-For": attacker },
      });
      statuses.push(res.status());
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual(Array(5).fill(429));
    // Even the right password waits at the attacker's address…
    const waiting = await request.post("/api/v1/login", {
      data: { email: victim.email, password: victim.password },
      headers: { "X-Forwarded-For": attacker },
    });
    const body = await expectError(waiting, 429, "rate_limited");
    expect(body.message).toMatch(
      /^Too many failed sign-in attempts\. Try again in \d+ (seconds?|minutes?)\.$/,
    );
    expect(Number(waiting.headers()["retry-after"])).toBeGreaterThan(0);
    // …while the owner, from anywhere else, signs in at once.
    const owner = await request.post("/api/v1/login", {
      data: { email: victim.email, password: victim.password },
      headers: { "X-Forwarded-For": address() },
    });
    expect(owner.status(), await owner.text()).toBe(200);
  });

  test("60 parallel wrong passwords check no more than the limit of 10", async ({ request }) => {
    const victim = await memberWithRole(request, ws, "Viewer");
    const from = address();
    const statuses = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        request
          .post("/api/v1/login", {
            data: { email: victim.email, password: `parallel-${i}` },
            headers: { "X-Forwarded-For": from },
          })
          .then((r) => r.status()),
      ),
    );
    // A 401 is a password that was checked; every other attempt was refused before its check.
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(50);
  });

  test("a new person behind a busy shared address signs in at once after 60 failures there; spraying from it stays throttled", async ({
    request,
  }) => {
    // About 130 sign-ins one after another, each hashing a password on purpose: on a loaded machine
    // that outlasts the default minute (run r1, load 30), and the time is not what this test checks.
    test.setTimeout(240_000);
    const regular = await memberWithRole(request, ws, "Viewer");
    const fresh = await memberWithRole(request, ws, "Viewer");
    const office = address();
    const signIn = (email: string, password: string) =>
      request.post("/api/v1/login", { data: { email, password }, headers: { "X-Forwarded-For": office } });
    expect((await signIn(regular.email, regular.password)).status()).toBe(200);
    // 60 failures from the office's address at other accounts (past LOGIN_MAX_FAILURES_PER_IP, 50).
    const sprayed = Array.from({ length: 60 }, () => `spray-${uniqueSuffix()}@example.com`);
    for (const email of sprayed) expect((await signIn(email, "guess-guess")).status()).toBe(401);
    // Someone signing in from there for the first time gets in at once, and again afterwards.
    const first = await signIn(fresh.email, fresh.password);
    expect(first.status(), await first.text()).toBe(200);
    expect((await signIn(fresh.email, fresh.password)).status()).toBe(200);
    expect((await signIn(regular.email, regular.password)).status()).toBe(200);
    // The sprayer: no second password at any account it tried, 429 before the password is checked…
    for (const email of sprayed) await expectError(await signIn(email, "second-guess"), 429, "rate_limited");
    // …and at a new account, one attempt: a wrong one, then even the right one waits.
    const target = await memberWithRole(request, ws, "Viewer");
    expect((await signIn(target.email, "first-guess")).status()).toBe(401);
    await expectError(await signIn(target.email, target.password), 429, "rate_limited");
    expect((await request.post("/api/v1/login", { data: { email: target.email, password: target.password }, headers: { "X-Forwarded-For": address() } })).status()).toBe(200);
  });
});

/** Signs in through next-auth's credentials route as the console does; true when a session cookie was set. */
async function consoleSignIn(
  email: string,
  password: string,
  from: string,
): Promise<{ ok: boolean; url: string }> {
  const ctx: APIRequestContext = await playwrightRequest.newContext({ baseURL: BASE_URL });
  try {
    const { csrfToken } = await (await ctx.get("/api/auth/csrf")).json();
    const res = await ctx.post("/api/auth/callback/credentials", {
      form: { email, password, csrfToken, json: "true", callbackUrl: `${BASE_URL}/dashboard` },
      headers: { "X-Forwarded-For": from },
      maxRedirects: 0,
    });
    const cookies = await ctx.storageState();
    const ok = cookies.cookies.some((c) => c.name.includes("next-auth.session-token"));
    // With json=true next-auth answers {url} (401 for a refusal) instead of redirecting.
    const isJson = (res.headers()["content-type"] ?? "").includes("json");
    const url = isJson
      ? (((await res.json()) as { url?: string }).url ?? "")
      : (res.headers().location ?? "");
    return { ok, url };
  } finally {
    await ctx.dispose();
  }
}

test.describe("the console's credentials route goes through the same throttle", () => {
  test("per account+address: after ten wrong passwords there, the right one waits; elsewhere it works", async ({
    request,
  }) => {
    const victim = await memberWithRole(request, ws, "Viewer");
    const attacker = address();
    for (let i = 0; i < 10; i++)
      expect((await consoleSignIn(victim.email, `wrong-${i}`, attacker)).ok).toBe(false);
    const refused = await consoleSignIn(victim.email, victim.password, attacker);
    expect(refused.ok).toBe(false);
    expect(decodeURIComponent(refused.url)).toContain("Too many failed sign-in attempts");
    expect((await consoleSignIn(victim.email, victim.password, address())).ok).toBe(true);
  });

  test("per address: at an address that sprayed the API, the console refuses the sprayed accounts and lets a new one in", async ({
    request,
  }) => {
    const fresh = await memberWithRole(request, ws, "Viewer");
    const sprayer = address();
    const sprayed: string[] = [];
    for (let i = 0; i < 50; i++) {
      sprayed.push(`spray-${uniqueSuffix()}@example.com`);
      const res = await request.post("/api/v1/login", {
        data: { email: sprayed[i], password: "guess-guess" },
        headers: { "X-Forwarded-For": sprayer },
      });
      expect(res.status()).toBe(401);
    }
    const refused = await consoleSignIn(sprayed[0], "another-guess", sprayer);
    expect(refused.ok).toBe(false);
    expect(decodeURIComponent(refused.url)).toContain("Too many failed sign-in attempts");
    expect((await consoleSignIn(fresh.email, fresh.password, sprayer)).ok).toBe(true);
  });
});

/** The e2e server's JWT secret (scripts/e2e-server.ts keeps its secrets under DATA_DIR). */
function serverJwtSecret(): string {
  // The same choice as scripts/e2e-server.ts: its own DATA_DIR with TEST_DATABASE_URL, else .data/e2e.
  const file = path.resolve(
    process.env.TEST_DATABASE_URL ? ".data/e2e-secrets/secrets.json" : ".data/e2e/secrets.json",
  );
  if (!existsSync(file)) throw new Error(`the e2e server's secrets were not found at ${file}`);
  return (JSON.parse(readFileSync(file, "utf8")) as { jwtSecret: string }).jwtSecret;
}

test("a correctly signed session token without exp is 401", async ({ request }) => {
  const member = await memberWithRole(request, ws, "Member");
  const key = new TextEncoder().encode(serverJwtSecret());
  const forge = (exp: boolean) => {
    let jwt = new SignJWT({ kind: "session" })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(String(member.userId))
      .setJti(`forged-${uniqueSuffix()}`)
      .setIssuedAt();
    if (exp) jwt = jwt.setExpirationTime("1h");
    return jwt.sign(key);
  };
  // The same forgery with exp works, so the secret is right and only exp makes the difference.
  expect(
    (
      await new Api({ token: await forge(true), workspaceId: ws.id }).get("/api/v1/users/me")
    ).status(),
  ).toBe(200);
  await expectError(
    await new Api({ token: await forge(false), workspaceId: ws.id }).get("/api/v1/users/me"),
    401,
    "unauthorized",
  );
});

test("deeply nested JSON is a 400 with a sentence, even on /api/v1/login", async ({ request }) => {
  const res = await request.post("/api/v1/login", {
    headers: { "content-type": "application/json" },
    data: "[".repeat(20_000) + "]".repeat(20_000),
  });
  const body = await expectError(res, 400, "bad_request");
  expect(body.message).toMatch(/nests arrays and objects deeper than 64 levels/);
  const object = await request.post("/api/v1/syncs", {
    headers: {
      Authorization: `Bearer ${ws.admin.session.token}`,
      "Workspace-Id": String(ws.id),
      "content-type": "application/json",
    },
    data: `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`,
  });
  await expectError(object, 400, "bad_request");
});

test("/api/metrics without a token is refused to a remote client behind the proxy, even one claiming the peer header", async ({
  request,
}) => {
  for (const headers of [
    { "X-Forwarded-For": "203.0.113.7" } as Record<string, string>,
    { "X-Forwarded-For": "203.0.113.7", "x-datasync-peer": "forged 127.0.0.1" },
  ]) {
    await expectError(await request.get("/api/metrics", { headers }), 401, "unauthorized");
  }
  // From this machine (the socket peer, with no one forwarded for) it is served.
  expect((await request.get("/api/metrics")).status()).toBe(200);
});
