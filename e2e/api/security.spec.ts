// Security over HTTP: headers on pages, the 1 MB request limit, the outbound network policy of HTTP
// connectors through the API, and no secret in any connector answer. (Login throttling per account
// and per address: users.spec.ts; tokens: permissions-matrix.spec.ts and api-tokens.spec.ts.)
import { expect, request as playwrightRequest, test, type APIRequestContext } from "@playwright/test";
import { ADMIN, BASE_URL, expectError } from "../support/api";
import { dataWorkspace, pgConfiguration, unique, type DataWorkspace } from "../support/data";

let ws: DataWorkspace;
test.beforeAll(async () => {
  ws = await dataWorkspace("security");
});
test.afterAll(async () => ws?.dispose());

const scriptSrc = (csp: string | undefined) => /(?:^|;)\s*script-src ([^;]*)/.exec(csp ?? "")?.[1] ?? "";

test("pages carry CSP (frame-ancestors 'none'), no-sniff, frame and referrer policies", async ({ request }) => {
  for (const path of ["/login", "/setup", "/api/health"]) {
    const res = await request.get(path, { maxRedirects: 0 });
    const h = res.headers();
    expect(h["content-security-policy"], path).toContain("frame-ancestors 'none'");
    expect(h["content-security-policy"], path).toContain("default-src 'self'");
    // Inline scripts run only with the page's nonce; responses that are not pages run none.
    expect(scriptSrc(h["content-security-policy"]), path).not.toContain("'unsafe-inline'");
    expect(scriptSrc(h["content-security-policy"]), path).toMatch(path.startsWith("/api/") ? /^'none'$/ : /'nonce-[\w+/=]{16,}'/);
    expect(h["x-content-type-options"], path).toBe("nosniff");
    expect(h["x-frame-options"], path).toBe("DENY");
    expect(h["referrer-policy"], path).toBe("strict-origin-when-cross-origin");
    expect(h["x-powered-by"], path).toBeUndefined();
  }
});

test("a body over 1 MB is 413 before it is read, on routes with and without a body", async () => {
  const big = { connector: { name: "x".repeat(1_100_000) } };
  await expectError(await ws.admin.post("/api/v1/connectors", big), 413, "payload_too_large");
  await expectError(await ws.admin.post("/api/v1/login", { email: "a@example.com", password: "x".repeat(1_100_000) }), 413, "payload_too_large");
  await expectError(await ws.admin.delete("/api/v1/syncs/1"), 404, "not_found");
});

test("HTTP connectors may never reach cloud metadata addresses (check_connection and connectors)", async () => {
  for (const url of ["http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/", "http://metadata.google.internal/computeMetadata/v1/", "http://169.254.170.2/v2/credentials"]) {
    const res = await ws.admin.post("/api/v1/connector_definitions/check_connection", { type: "destination", name: "Http", connection_spec: { destination_url: url } });
    expect(res.status(), await res.text()).toBe(200);
    const body = await res.json();
    expect(body.result, url).toBe("failure");
    expect(body.details, url).toMatch(/metadata|not allowed/i);
  }
  const model = await ws.admin.post("/api/v1/connector_definitions/check_connection", {
    name: "HttpModel",
    connection_spec: { url: "http://169.254.169.254/latest/api/token", method: "POST" },
  });
  expect((await model.json()).result).toBe("failure");
});

test("connector answers never carry the stored secret", async () => {
  const secret = `pw-${unique("s")}`;
  const created = await ws.admin.post("/api/v1/connectors", {
    connector: { name: unique("sec"), connector_type: "source", connector_name: "Postgresql", configuration: pgConfiguration({ credentials: { auth_type: "username/password", username: "postgres", password: secret } }) },
  });
  expect(created.status()).toBe(201);
  const id = (await created.json()).data.id;
  for (const res of [created, await ws.admin.get(`/api/v1/connectors/${id}`), await ws.admin.get("/api/v1/connectors?per_page=100"), await ws.viewer.get(`/api/v1/connectors/${id}`)]) {
    expect(await res.text()).not.toContain(secret);
  }
});

/** A client holding the console's next-auth session cookie (signed in the way the console does). */
async function consoleCookieClient(): Promise<APIRequestContext> {
  const client = await playwrightRequest.newContext({ baseURL: BASE_URL });
  const { csrfToken } = await (await client.get("/api/auth/csrf")).json();
  const res = await client.post("/api/auth/callback/credentials", {
    form: { email: ADMIN.email, password: ADMIN.password, csrfToken, json: "true" },
    maxRedirects: 0,
  });
  expect(res.status(), await res.text()).toBeLessThan(400);
  expect((await client.storageState()).cookies.map((c) => c.name)).toContain("next-auth.session-token");
  return client;
}

test("a signed-in page whose path ends like a static file (/sources/1.txt) still gets the nonce policy", async () => {
  const client = await consoleCookieClient();
  try {
    for (const path of ["/sources/1.txt", "/dashboard.svg", "/syncs/2.png"]) {
      const res = await client.get(path, { maxRedirects: 0 });
      expect(scriptSrc(res.headers()["content-security-policy"]), `${path}: ${res.status()}`).toMatch(/'nonce-[\w+/=]{16,}'/);
    }
  } finally {
    await client.dispose();
  }
});

test("the session cookie authenticates the API, but writes only from our own origin (CSRF)", async () => {
  const client = await consoleCookieClient();
  try {
    const create = (headers: Record<string, string>) =>
      client.post("/api/v1/api_tokens", { headers, data: { api_token: { name: unique("cookie") } } });
    const count = async () => {
      const res = await client.get("/api/v1/api_tokens?per_page=100");
      expect(res.status(), "reads need no proof of origin").toBe(200);
      return ((await res.json()).data as unknown[]).length;
    };
    const before = await count();
    // A read another site started (a link, an <img>) is refused too: some reads do work.
    await expectError(await client.get("/api/v1/api_tokens", { headers: { "Sec-Fetch-Site": "cross-site" } }), 403, "forbidden");

    for (const headers of [
      {} as Record<string, string>,
      { Origin: "http://evil.example" },
      { Origin: "null" },
      { Origin: BASE_URL, "Sec-Fetch-Site": "cross-site" },
      { "Sec-Fetch-Site": "same-site" },
    ]) {
      const body = await expectError(await create(headers), 403, "forbidden");
      expect(body.message).toMatch(/Authorization: Bearer/);
    }
    // The form a cross-site page can send: text/plain JSON, its own Origin.
    const form = await client.post("/api/v1/api_tokens", {
      headers: { Origin: "http://evil.example", "Content-Type": "text/plain" },
      data: JSON.stringify({ api_token: { name: unique("form") } }),
    });
    await expectError(form, 403, "forbidden");
    expect(await count(), "no refused request created a token").toBe(before);

    for (const headers of [{ Origin: BASE_URL }, { "Sec-Fetch-Site": "same-origin" }] as Record<string, string>[]) {
      const res = await create(headers);
      expect(res.status(), await res.text()).toBe(201);
    }
    expect(await count()).toBe(before + 2);

    // Programs are unchanged: a bearer token needs no Origin.
    const bearer = await ws.admin.post("/api/v1/api_tokens", { api_token: { name: unique("bearer") } });
    expect(bearer.status(), await bearer.text()).toBe(201);
  } finally {
    await client.dispose();
  }
});
