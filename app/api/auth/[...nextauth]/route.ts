// /api/auth/* - next-auth's own endpoints (sign-in with credentials, session, CSRF, sign-out).
import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/next-auth";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ nextauth: string[] }> };

function handler(req: Request, context: Context) {
  return NextAuth(req as never, context as never, authOptions());
}

export { handler as GET, handler as POST };
