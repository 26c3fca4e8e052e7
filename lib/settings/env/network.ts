// What the server and its connectors may reach, and who may read its metrics. Part of envSchema
// (lib/settings/env.ts), in its order: the README lists them so.
import { z } from "zod";
import { variable, integer, flag, text, urlOf } from "./kinds";

export const networkVariables = {
  // The network
  TRUST_PROXY: flag(
    false,
    "`1` = a reverse proxy in front sets `X-Forwarded-For` (client address for login throttling and metrics), `X-Forwarded-Host` and `-Proto` (links in responses); otherwise the server drops those headers and uses the socket peer and the `Host` header",
  ),
  OUTBOUND_ALLOW_PRIVATE: variable(
    z.string().optional(),
    { form: "a comma list of addresses and CIDR ranges, or `*`", unset: "none" },
    "private, loopback and link-local addresses connectors (HTTP, PostgreSQL, MariaDB, Slack, Redis, RabbitMQ, NATS, MQTT and the SaaS destinations) may reach: a comma list of addresses and CIDR ranges (`10.0.0.0/8,192.168.1.20`), or `*` for all; none by default. Cloud metadata addresses and the application's own database are always refused. `DEMO=1` allows the demo database's host when unset. See [docs/security.md](docs/security.md)",
  ),
  CONNECTOR_ENV_ALLOWLIST: variable(
    z.string().optional(),
    { form: "a comma list of variable names", unset: "none" },
    "environment variables connector configurations may name as `ENV['X']` (comma list); none by default, and never the server's own secrets",
  ),
  DUCKDB_DATA_DIR: text(
    "directory whose files the DuckDB source reads; each workspace sees only its own subdirectory, `<DUCKDB_DATA_DIR>/workspace-<id>` (Parquet, CSV and JSON files, and DuckDB databases opened read-only). Unset, the DuckDB source refuses to read. See [docs/connectors.md](docs/connectors.md#duckdb)",
  ),
  FILES_MAX_DOWNLOAD_MB: integer(
    1,
    1024,
    "most megabytes the file sources (AmazonS3, Sftp, GoogleDrive) copy from their store for one operation (a discovery, a preview, a read), into a private temporary directory removed after it; a model naming more fails with a sentence. See [docs/connectors.md](docs/connectors.md#file-layer)",
  ),
  FILES_TEMP_DIR: text(
    "directory where the file connectors keep their temporary copies (each operation its own private subdirectory, removed after it); unset: the system's temporary directory",
    "the system's temporary directory",
  ),
  AWS_ENDPOINT_URL_STS: urlOf(
    ["https:", "http:"],
    "a URL",
    "where the AmazonS3 source asks AWS STS for a role's credentials (`auth_type` role): a regional or VPC endpoint, or a test server; unset, the region's STS endpoint. The server's own AWS credentials sign the request (the SDK's usual chain: environment, profile, instance or task role)",
    "the region's STS endpoint",
  ),
  S3_ROLE_AUTH: flag(
    false,
    "whether the AmazonS3 source may use `auth_type` role (AssumeRole with this server's own AWS identity). Off, such a connector is refused (422). On, a role in this server's own AWS account is refused, and an external id is required: every role's trust policy must name the customer's own external id (see [docs/connectors.md](docs/connectors.md#amazons3))",
  ),
  METRICS_TOKEN: text(
    "when set, `/api/metrics` requires `Authorization: Bearer <METRICS_TOKEN>`; unset, it answers only requests from this machine (loopback socket peer, and no remote client forwarded by a proxy)",
  ),
};
