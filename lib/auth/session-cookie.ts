// Reads the console's next-auth session (an encrypted, httpOnly cookie) on the server. Shared by the
// page guard (proxy.ts) and the API (lib/http/credentials.ts), so both read the same cookie.
import "server-only";
import type { NextRequest } from "next/server";
import { getToken, type JWT } from "next-auth/jwt";
import { nextAuthSecret } from "@/lib/auth/next-auth";

const SECURE_NAME = "__Secure-next-auth.session-token";

/** The decoded session cookie of the request, or null when there is none or it does not verify. */
export function consoleSession(req: NextRequest): Promise<JWT | null> {
  // next-auth names the cookie `__Secure-…` when it believes it is served over https (NEXTAUTH_URL,
  // or X-Forwarded-Proto behind a proxy). Whichever name it chose is the one the browser sends back;
  // the name grants nothing, the content is encrypted with our secret.
  const secureCookie = req.cookies.getAll().some((c) => c.name.startsWith(SECURE_NAME));
  return getToken({ req, secret: nextAuthSecret(), secureCookie });
}
