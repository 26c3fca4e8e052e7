// The PostgreSQL connector configuration for a database URL, as tests and the bench point
// connectors at the local server's scratch databases.
import type { Row } from "@/lib/connectors/types";

export function pgConnectorConfig(url: string, extra: Row = {}): Row {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 5432),
    database: u.pathname.slice(1),
    schema: "public",
    credentials: { auth_type: "username/password", username: decodeURIComponent(u.username || "postgres"), password: decodeURIComponent(u.password) },
    ...extra,
  };
}
