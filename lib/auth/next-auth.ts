// next-auth (v4) configuration for the console: a credentials provider whose authorize() calls the
// login service, and a session cookie (httpOnly, encrypted) that carries the API's own JWT. The
// console calls the same-origin REST API with that cookie; the API reads the JWT out of it on the
// server, so page scripts never hold it. The next-auth session lasts exactly as long as that API
// token; when it ends, the console sends the person back to sign in.
import "server-only";
import { createHmac } from "node:crypto";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getServerSession } from "next-auth/next";
import { safeCallbackPath } from "@/lib/auth/callback-url";
import { sessionTtlSeconds } from "@/lib/auth/jwt";
import { env } from "@/lib/settings/env";
import { secrets } from "@/lib/settings/secrets";
import { clientAddress } from "@/lib/http/forwarded";
import { loginSchema } from "@/lib/validation/auth";

declare module "next-auth" {
  interface Session {
    /** When the API token held in the session cookie expires (ms since epoch); 0 without one. */
    accessTokenExpires: number;
    user: { id: string; email: string; name?: string | null };
  }
  interface User {
    accessToken: string;
    accessTokenExpires: number;
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    accessToken?: string;
    accessTokenExpires?: number;
    uid?: string;
  }
}

/** NEXTAUTH_SECRET when set, else a key derived from the API's JWT secret (never the same bytes). */
export function nextAuthSecret(): string {
  return (
    env.NEXTAUTH_SECRET ||
    env.AUTH_SECRET ||
    createHmac("sha256", secrets().jwtSecret).update("datasync:next-auth").digest("base64url")
  );
}

// Without NEXTAUTH_URL, next-auth v4 only derives its URL from the request's Host header when told
// to trust it; the console is reachable under whatever host it is served on. (This tells the
// library, which reads only its environment; nothing of ours reads AUTH_TRUST_HOST.)
if (!env.NEXTAUTH_URL) process.env.AUTH_TRUST_HOST ??= "true";

/** next-auth passes request headers as a plain record. */
function headerEntries(headers: Record<string, unknown> | undefined): [string, string][] {
  return Object.entries(headers ?? {}).flatMap(([k, v]) => (typeof v === "string" ? [[k, v] as [string, string]] : []));
}

let cached: NextAuthOptions | undefined;

/** Built on first use, so importing this module (e.g. while Next builds) reads no secrets. */
export function authOptions(): NextAuthOptions {
  if (cached) return cached;
  cached = {
    secret: nextAuthSecret(),
    session: { strategy: "jwt", maxAge: sessionTtlSeconds() },
    pages: { signIn: "/login" },
    providers: [
      CredentialsProvider({
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, req) {
          const parsed = loginSchema.safeParse(credentials ?? {});
          if (!parsed.success) return null;
          // Imported here so the proxy, which only needs the secret, does not bundle the database.
          const { login } = await import("@/lib/services/accounts/auth");
          const { signInFailure } = await import("@/lib/services/accounts/sign-in-failure");
          try {
            // The same throttle as POST /api/v1/login, per account+address and per address.
            const ip = clientAddress(new Headers(headerEntries(req?.headers)));
            const { token, expiresAt, userId } = await login(parsed.data, { ip });
            return {
              id: String(userId),
              email: parsed.data.email,
              accessToken: token,
              accessTokenExpires: expiresAt ? expiresAt.getTime() : Date.now() + sessionTtlSeconds() * 1000,
            };
          } catch (err) {
            // next-auth hands a thrown message to the form as its error; a wrong password stays a bare null.
            const failure = signInFailure(err);
            if (failure === null) return null;
            if (failure.logged) {
              const { logger } = await import("@/lib/logger");
              logger.warn({ err: err instanceof Error ? err.message : String(err) }, "console sign-in failed");
            }
            throw new Error(failure.message);
          }
        },
      }),
    ],
    callbacks: {
      async jwt({ token, user }) {
        if (user) {
          token.accessToken = user.accessToken;
          token.accessTokenExpires = user.accessTokenExpires;
          token.uid = user.id;
        }
        return token;
      },
      // What page scripts see (GET /api/auth/session): never the API token itself, which stays in
      // the httpOnly cookie and is read on the server (lib/http/credentials.ts).
      async session({ session, token }) {
        session.accessTokenExpires = token.accessToken ? (token.accessTokenExpires ?? 0) : 0;
        session.user = { id: token.uid ?? "", email: token.email ?? "", name: token.name ?? null };
        return session;
      },
      // Only ever redirect within the console.
      async redirect({ url, baseUrl }) {
        return `${baseUrl}${safeCallbackPath(url, baseUrl)}`;
      },
    },
  };
  return cached;
}

/** The signed-in session with a still-valid API token, or null. For server components. */
export async function currentSession() {
  const session = await getServerSession(authOptions());
  if (!session || session.accessTokenExpires <= Date.now()) return null;
  return session;
}
