// Every page passes here. It gets a fresh CSP nonce (Next reads it from the request's
// Content-Security-Policy header and puts it on its own scripts), and console pages need a
// signed-in session; without one the request goes to /login (and comes back after signing in).
// The sign-in, first-run and mail-link pages (password reset, email verification, alert confirm and
// unsubscribe) are open to everyone. The API, next-auth's routes and static
// files are not matched: the API authenticates every request itself, and next.config.ts gives
// those responses a policy without scripts.
import { NextResponse, type NextRequest } from "next/server";
import { consoleSession } from "@/lib/auth/session-cookie";
import { newNonce, pagePolicy } from "@/lib/http/content-security-policy";

const OPEN_PAGES =
  /^\/(?:login|setup|sign-in|forgot-password|reset-password|verify-user|alert-subscription|accept-invitation)(?:\/|$)/;

async function signedIn(req: NextRequest): Promise<"yes" | "no" | "expired"> {
  const token = await consoleSession(req);
  if (!token) return "no";
  return token.accessToken && (token.accessTokenExpires ?? 0) > Date.now() ? "yes" : "expired";
}

export async function proxy(req: NextRequest) {
  if (!OPEN_PAGES.test(req.nextUrl.pathname)) {
    const state = await signedIn(req);
    if (state !== "yes") {
      const login = new URL("/login", req.url);
      const target = req.nextUrl.pathname + req.nextUrl.search;
      if (target !== "/" && target !== "/dashboard") login.searchParams.set("callbackUrl", target);
      if (state === "expired") login.searchParams.set("expired", "1");
      return NextResponse.redirect(login);
    }
  }
  const policy = pagePolicy(newNonce());
  const headers = new Headers(req.headers);
  headers.set("content-security-policy", policy);
  const res = NextResponse.next({ request: { headers } });
  res.headers.set("content-security-policy", policy);
  return res;
}

export const config = {
  // Only the real static files are left out: a page path that merely ends in `.txt` (say
  // /sources/1.txt) is still a page, and gets its nonce policy.
  matcher: ["/((?!api/|enterprise/|_next/|icons/|favicon\\.svg$).*)"],
};
