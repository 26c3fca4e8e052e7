// Console pages need a signed-in session; without one the request goes to /login (and comes back
// after signing in). The API, next-auth's own routes, the sign-in and first-run pages, and static
// files are not guarded here: the API authenticates every request itself.
import { NextResponse, type NextRequest } from "next/server";
import { getToken } from "next-auth/jwt";
import { nextAuthSecret } from "@/lib/auth/next-auth";

export async function proxy(req: NextRequest) {
  const token = await getToken({ req, secret: nextAuthSecret() });
  const valid = Boolean(token?.accessToken) && (token?.accessTokenExpires ?? 0) > Date.now();
  if (valid) return NextResponse.next();
  const login = new URL("/login", req.url);
  const target = req.nextUrl.pathname + req.nextUrl.search;
  if (target !== "/" && target !== "/dashboard") login.searchParams.set("callbackUrl", target);
  if (token) login.searchParams.set("expired", "1");
  return NextResponse.redirect(login);
}

export const config = {
  matcher: ["/((?!api/|enterprise/|_next/|login|setup|icons/|favicon|.*\\.(?:svg|png|ico|txt|webmanifest)$).*)"],
};
