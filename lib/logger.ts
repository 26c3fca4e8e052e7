// Structured JSON logs (pino). Every line written while a request is handled carries its request id
// (AsyncLocalStorage), and known secret keys are redacted so they never reach a log line.
import { AsyncLocalStorage } from "node:async_hooks";
import pino from "pino";
import { env } from "@/lib/settings/env";

interface LogContext {
  requestId?: string;
}

const context = new AsyncLocalStorage<LogContext>();

/** Runs `fn` with fields that every log line inside it carries. */
export function withLogContext<T>(fields: LogContext, fn: () => T): T {
  return context.run({ ...context.getStore(), ...fields }, fn);
}

export const logger = pino({
  level: env.LOG_LEVEL ?? (env.NODE_ENV === "test" ? "warn" : "info"),
  base: { service: "datasync" },
  mixin: () => ({ ...context.getStore() }),
  redact: {
    paths: [
      "password",
      "*.password",
      "*.*.password",
      "token",
      "*.token",
      "authorization",
      "*.authorization",
      "headers.authorization",
      "configuration",
      "*.configuration",
      "connection_spec",
      "*.connection_spec",
    ],
    censor: "[redacted]",
  },
});

export type Logger = typeof logger;
