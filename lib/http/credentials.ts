// The API token a request carries: a program's `Authorization: Bearer <token>`, or, for the console,
// the API token held inside its next-auth session cookie (httpOnly, so page scripts never see it).
// Either way the same token is verified by lib/services/accounts/auth-context.ts, so expiry and revocation
// rules are identical.
//
// A cookie is sent by the browser whatever page made the request, so a cookie-authenticated request
// that may write must prove it comes from our own pages (cross-site request forgery). SameSite=Lax
// alone does not cover same-site attackers (a sibling subdomain) nor old browsers.
import type { NextRequest } from "next/server";
import { consoleSession } from "@/lib/auth/session-cookie";
import { Forbidden } from "@/lib/errors";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

const CROSS_SITE =
  "This request was signed in with the console's session cookie but did not come from the console's own pages " +
  "(its Origin is missing or another site's), so it was refused. Programs authenticate with `Authorization: Bearer <token>`.";

function bearer(header: string): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

/**
 * Same origin, as the browser tells it: Sec-Fetch-Site when the browser sends it (every current
 * one does), else the Origin header against the host the request was addressed to. A cross-site
 * page can set neither header, and a request without both is refused.
 */
export function isSameOrigin(req: NextRequest): boolean {
  const site = req.headers.get("sec-fetch-site");
  if (site !== null) return site === "same-origin";
  const origin = req.headers.get("origin");
  if (!origin) return false;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false;
  }
  // A page cannot set X-Forwarded-Host on a cross-site request, so either host the request names will do.
  return [req.headers.get("host"), req.headers.get("x-forwarded-host")].some((h) => h !== null && h.toLowerCase() === host);
}

/**
 * Reads need no proof (older browsers send neither header on a same-origin GET), but one the
 * browser says another site started is refused too: some reads do work (discover?refresh=true).
 */
function sentByAnotherSite(req: NextRequest): boolean {
  const site = req.headers.get("sec-fetch-site");
  return site === "cross-site" || site === "same-site";
}

/** The API token of the request, or null when it carries none. Throws Forbidden for cross-site cookie writes. */
export async function requestToken(req: NextRequest): Promise<string | null> {
  // A program that sends Authorization is judged by it alone, never by a cookie it may also carry.
  const header = req.headers.get("authorization");
  if (header !== null) return bearer(header);
  const session = await consoleSession(req);
  if (!session?.accessToken) return null;
  const allowed = SAFE_METHODS.has(req.method) ? !sentByAnotherSite(req) : isSameOrigin(req);
  if (!allowed) throw new Forbidden(CROSS_SITE);
  return session.accessToken;
}
