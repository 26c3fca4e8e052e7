// The console's session as an attacker sees it from a browser: where sign-in may send you
// (open redirect), what page scripts can read (the API token), which scripts a page runs (CSP
// nonces), and whether another page can write with the session cookie (cross-site request forgery).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "@playwright/test";
import { ADMIN, Api, loginAs } from "../support/api";
import { unique } from "../support/data";
import { expect, signIn, test, url } from "./fixtures";

/** A page on another origin of this machine that records every request it receives. */
interface Attacker {
  origin: string;
  hits: string[];
  /** What GET / answers (HTML). */
  page: string;
  server: Server;
}

async function startAttacker(): Promise<Attacker> {
  const attacker = { origin: "", hits: [] as string[], page: "<p>attacker</p>" } as Attacker;
  attacker.server = createServer((req, res) => {
    attacker.hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { "content-type": "text/html" }).end(attacker.page);
  });
  await new Promise<void>((resolve) => attacker.server.listen(0, "127.0.0.1", resolve));
  attacker.origin = `http://127.0.0.1:${(attacker.server.address() as AddressInfo).port}`;
  return attacker;
}

let attacker: Attacker;
test.beforeAll(async () => {
  attacker = await startAttacker();
});
test.afterAll(async () => {
  await new Promise((resolve) => attacker?.server.close(resolve));
});

/** Our own origin, as the browser sees it. */
async function ownOrigin(page: Page): Promise<string> {
  return page.evaluate(() => window.location.origin);
}

const JWT = /eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]+/;

test("after sign-in the browser stays on our origin, whatever callbackUrl asks for", async ({ page, consoleErrors }) => {
  test.setTimeout(300_000);
  void consoleErrors;
  const host = attacker.origin.replace(/^http:\/\//, "");
  const attacks = [
    `/\\${host}/x`,
    `/\t/${host}/x`,
    `//${host}/x`,
    `/.//${host}/x`,
    `${attacker.origin}/x`,
    "javascript:window.__pwned=1",
  ];
  for (const attack of attacks) {
    // Off the dashboard first: its polling, answered 401 once the cookies are gone, would log errors.
    await page.goto("about:blank");
    await page.context().clearCookies();
    await page.goto(url(`/login?callbackUrl=${encodeURIComponent(attack)}`));
    const ours = await ownOrigin(page);
    await page.getByLabel("Email").fill(ADMIN.email);
    await page.getByLabel("Password").fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    // Either the console (refused callbackUrl) or the other host (followed it).
    await page.waitForURL((u) => u.origin !== ours || u.pathname === "/dashboard", { timeout: 120_000 });
    expect(new URL(page.url()).origin, attack).toBe(ours);
    await expect(page.getByRole("heading", { name: "Dashboard" }), attack).toBeVisible();
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned), attack).toBeUndefined();
  }
  expect(attacker.hits, "the other host was never asked for anything").toEqual([]);

  // A path of our own is still where sign-in leads.
  await page.goto("about:blank");
  await page.context().clearCookies();
  await page.goto(url(`/login?callbackUrl=${encodeURIComponent("/models")}`));
  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password").fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Models" })).toBeVisible({ timeout: 60_000 });
});

test("page scripts cannot read the API token, and the console works on its httpOnly cookie", async ({ page, consoleErrors }) => {
  test.setTimeout(180_000);
  void consoleErrors;
  await signIn(page, ADMIN.email, ADMIN.password);
  const seen = await page.evaluate(async () => ({
    session: await (await fetch("/api/auth/session")).text(),
    html: document.documentElement.outerHTML,
    flight: JSON.stringify((self as unknown as { __next_f?: unknown[] }).__next_f ?? []),
    cookies: document.cookie,
    workspaces: (await fetch("/api/v1/workspaces")).status,
  }));
  expect(seen.session).toContain(ADMIN.email);
  expect(seen.session).not.toMatch(JWT);
  expect(seen.session).not.toContain('"accessToken"');
  expect(seen.html).not.toMatch(JWT);
  expect(seen.flight).not.toMatch(JWT);
  expect(seen.cookies).not.toContain("session-token");
  // Same-origin API calls need no Authorization header: the session cookie is enough.
  expect(seen.workspaces).toBe(200);
  // And the console itself reads and writes through it.
  await page.goto(url("/settings/api-tokens"));
  await expect(page.getByRole("heading", { level: 1, name: "API tokens" })).toBeVisible({ timeout: 60_000 });
});

test("pages carry a per-request nonce CSP, and an injected script without the nonce does not run", async ({ page }) => {
  test.setTimeout(180_000);
  const errors: string[] = [];
  page.on("console", (msg) => msg.type() === "error" && errors.push(msg.text()));
  page.on("pageerror", (err) => errors.push(err.message));

  const nonces = new Set<string>();
  for (const path of ["/login", "/setup", "/login"]) {
    const res = await page.request.get(url(path));
    const csp = res.headers()["content-security-policy"] ?? "";
    const scriptSrc = /(?:^|;)\s*script-src ([^;]*)/.exec(csp)?.[1] ?? "";
    expect(scriptSrc, path).toMatch(/'nonce-[A-Za-z0-9+/=]{16,}'/);
    expect(scriptSrc, path).not.toContain("'unsafe-inline'");
    nonces.add(/'nonce-([^']+)'/.exec(scriptSrc)![1]);
  }
  expect(nonces.size, "every page gets a new nonce").toBe(3);

  await signIn(page, ADMIN.email, ADMIN.password);
  expect(errors, "the console's own scripts all ran under the policy").toEqual([]);

  const outcome = await page.evaluate(
    () =>
      new Promise<{ injectedRan: boolean; trustedRan: boolean; violated: string }>((resolve) => {
        const w = window as unknown as Record<string, boolean>;
        const trusted = document.createElement("script");
        trusted.nonce = document.querySelector<HTMLScriptElement>("script[nonce]")?.nonce ?? "";
        trusted.textContent = "window.__trustedRan = true";
        document.body.appendChild(trusted);

        const injected = document.createElement("script");
        injected.textContent = "window.__injectedRan = true";
        document.addEventListener(
          "securitypolicyviolation",
          (e) => resolve({ injectedRan: Boolean(w.__injectedRan), trustedRan: Boolean(w.__trustedRan), violated: e.effectiveDirective }),
          { once: true },
        );
        document.body.appendChild(injected);
        // An inline script runs as it is inserted; had it run, no violation would ever come.
        if (w.__injectedRan) resolve({ injectedRan: true, trustedRan: Boolean(w.__trustedRan), violated: "" });
      }),
  );
  expect(outcome.trustedRan, "a script with the page's nonce runs").toBe(true);
  expect(outcome.injectedRan, "a script without the nonce does not run").toBe(false);
  expect(outcome.violated).toMatch(/^script-src/);
});

// No console-error check here: the browser rightly logs the refused (403) form submission.
test("another site cannot write with the session cookie (cross-site form POST)", async ({ page, request }) => {
  test.setTimeout(180_000);
  await signIn(page, ADMIN.email, ADMIN.password);
  const name = unique("csrf");
  const target = url("/api/v1/api_tokens");
  const absolute = new URL(target, await ownOrigin(page)).toString();
  // A text/plain form whose body is JSON: {"api_token":{"name":"…","pad":"="}}. 127.0.0.1 on another
  // port is the same site, so the browser sends the SameSite=Lax session cookie along.
  attacker.page = `<form method="POST" enctype="text/plain" action="${absolute}">
      <input name='{"api_token":{"name":"${name}","pad":"' value='"}}'>
    </form><script>document.forms[0].submit()</script>`;
  const response = page.waitForResponse((r) => r.url() === absolute && r.request().method() === "POST");
  await page.goto(`${attacker.origin}/`);
  const res = await response;
  expect(res.status()).toBe(403);
  expect(await res.text()).toMatch(/did not come from the console's own pages/);

  const admin = new Api({ token: await loginAs(request, ADMIN.email, ADMIN.password) });
  const tokens = (await (await admin.get("/api/v1/api_tokens?per_page=100")).json()).data as { attributes: { name: string } }[];
  expect(tokens.map((t) => t.attributes.name)).not.toContain(name);
});
