// Structured JSON logs (pino). Secrets never reach a log line: known secret keys are redacted.
import pino from "pino";

export const logger = pino({
  level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === "test" ? "warn" : "info"),
  base: { service: "datasync" },
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
    ],
    censor: "[redacted]",
  },
});

export type Logger = typeof logger;
