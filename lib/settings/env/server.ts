// Where the server runs and its application database. Part of envSchema (lib/settings/env.ts), in its
// order: the README lists them so.
import { z } from "zod";
import { variable, integer, text, textWithDefault, urlOf } from "./kinds";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

export const serverVariables = {
  // Where it runs
  PORT: integer(1, 3000, "port the console and API listen on"),
  HOST: textWithDefault("0.0.0.0", "address the console and API listen on"),
  NODE_ENV: text(
    "`production` refuses to start without strong `JWT_SECRET` / `ENCRYPTION_KEY` (unless on the embedded database); set by Next for its own builds",
  ),
  NEXT_DIST_DIR: textWithDefault(".next", "where the console build is kept"),
  LOG_LEVEL: variable(
    z.enum(LOG_LEVELS).optional(),
    { form: LOG_LEVELS.join(", "), unset: "`info` (`warn` under tests)" },
    "pino log level (JSON logs, one request id per request)",
  ),
  // The application database
  DATABASE_URL: urlOf(
    ["postgres:", "postgresql:"],
    "a postgresql:// URL",
    "PostgreSQL of the application; unset = embedded PostgreSQL",
    "embedded",
  ),
  DATA_DIR: textWithDefault(".data", "embedded database files and generated secrets"),
  EMBEDDED_PG_PORT: integer(1, 54329, "port of the embedded PostgreSQL (never 5432)"),
  DATABASE_POOL_SIZE: integer(1, 10, "database connections per process"),
  PGBOSS_SCHEMA: textWithDefault("pgboss", "PostgreSQL schema of the job queue (pg-boss)"),
  PGBOSS_POOL_SIZE: integer(1, 4, "database connections of the job queue per process"),
};
