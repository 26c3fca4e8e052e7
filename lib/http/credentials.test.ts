// Which API token a request carries, and when the console's session cookie may be used for a write.
import { encode } from "next-auth/jwt";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Forbidden } from "@/lib/errors";
import { isSameOrigin, requestToken } from "./credentials";

const saved = process.env.NEXTAUTH_SECRET;
beforeAll(() => {
  process.env.NEXTAUTH_SECRET = "credentials-test-secret-0123456789abcdef";
});
afterAll(() => {
  if (saved === undefined) delete process.env.NEXTAUTH_SECRET;
  else process.env.NEXTAUTH_SECRET = saved;
});

const cookieFor = async (accessToken: string, name = "next-auth.session-token") =>
  `${name}=${await encode({ token: { accessToken, accessTokenExpires: Date.now() + 60_000 }, secret: process.env.NEXTAUTH_SECRET! })}`;

const request = (method: string, headers: Record<string, string>) =>
  new NextRequest("http://127.0.0.1:3000/api/v1/syncs", { method, headers: { host: "127.0.0.1:3000", ...headers } });

describe("isSameOrigin", () => {
  it("trusts Sec-Fetch-Site when the browser sends it", () => {
    expect(isSameOrigin(request("POST", { "sec-fetch-site": "same-origin" }))).toBe(true);
    for (const site of ["same-site", "cross-site", "none"]) {
      expect(isSameOrigin(request("POST", { "sec-fetch-site": site, origin: "http://127.0.0.1:3000" })), site).toBe(false);
    }
  });

  it("else compares Origin with the host the request was sent to", () => {
    expect(isSameOrigin(request("POST", { origin: "http://127.0.0.1:3000" }))).toBe(true);
    expect(isSameOrigin(request("POST", { origin: "https://console.example", "x-forwarded-host": "console.example" }))).toBe(true);
    for (const origin of ["http://127.0.0.1:3001", "http://evil.example", "null", "not a url"]) {
      expect(isSameOrigin(request("POST", { origin })), origin).toBe(false);
    }
    expect(isSameOrigin(request("POST", {})), "neither header").toBe(false);
  });
});

describe("requestToken", () => {
  it("takes a program's bearer token, and never a cookie beside it", async () => {
    const cookie = await cookieFor("from-cookie");
    expect(await requestToken(request("POST", { authorization: "Bearer abc.def.ghi", cookie }))).toBe("abc.def.ghi");
    expect(await requestToken(request("POST", { authorization: "Basic eDp5", cookie }))).toBeNull();
    expect(await requestToken(request("GET", {}))).toBeNull();
  });

  it("reads the API token out of the session cookie, under either cookie name", async () => {
    expect(await requestToken(request("GET", { cookie: await cookieFor("api-jwt") }))).toBe("api-jwt");
    const secure = await cookieFor("api-jwt-secure", "__Secure-next-auth.session-token");
    expect(await requestToken(request("GET", { cookie: secure }))).toBe("api-jwt-secure");
    expect(await requestToken(request("GET", { cookie: "next-auth.session-token=forged" }))).toBeNull();
  });

  it("lets reads through unless the browser says another site sent them", async () => {
    const cookie = await cookieFor("api-jwt");
    for (const site of [undefined, "same-origin", "none"]) {
      const headers: Record<string, string> = site ? { cookie, "sec-fetch-site": site } : { cookie };
      expect(await requestToken(request("GET", headers)), site).toBe("api-jwt");
    }
    for (const site of ["cross-site", "same-site"]) {
      await expect(requestToken(request("GET", { cookie, "sec-fetch-site": site })), site).rejects.toBeInstanceOf(Forbidden);
    }
  });

  it("refuses a cookie-authenticated write that does not come from our own origin", async () => {
    const cookie = await cookieFor("api-jwt");
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      await expect(requestToken(request(method, { cookie, origin: "http://evil.example" })), method).rejects.toBeInstanceOf(Forbidden);
      await expect(requestToken(request(method, { cookie })), method).rejects.toBeInstanceOf(Forbidden);
      expect(await requestToken(request(method, { cookie, origin: "http://127.0.0.1:3000" })), method).toBe("api-jwt");
    }
  });
});
