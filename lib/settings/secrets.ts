// Process secrets: JWT_SECRET and ENCRYPTION_KEY from the environment, or, for the embedded default,
// generated once and persisted under DATA_DIR (mode 0600) so tokens and encrypted configurations
// survive restarts. In production a missing or default secret refuses to start.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { env } from "./env";
import { usesEmbeddedDatabase } from "./process-database";

export const KNOWN_DEFAULTS = new Set(["", "changeme", "change-me", "secret", "default", "development"]);

interface StoredSecrets {
  jwtSecret: string;
  encryptionKey: string;
}

let cached: StoredSecrets | undefined;

function storedSecrets(): StoredSecrets {
  const dir = path.resolve(env.DATA_DIR);
  const file = path.join(dir, "secrets.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as StoredSecrets;
  const fresh = {
    jwtSecret: randomBytes(48).toString("base64url"),
    encryptionKey: randomBytes(32).toString("base64"),
  };
  mkdirSync(dir, { recursive: true });
  // `wx` so two processes starting together cannot overwrite each other's secrets.
  try {
    writeFileSync(file, JSON.stringify(fresh), { mode: 0o600, flag: "wx" });
    return fresh;
  } catch {
    return JSON.parse(readFileSync(file, "utf8")) as StoredSecrets;
  }
}

function isWeak(value: string | undefined): boolean {
  return value === undefined || KNOWN_DEFAULTS.has(value.trim().toLowerCase()) || value.length < 16;
}

/**
 * Throws when production runs with missing or default secrets. Called at startup, before the
 * database is open: the embedded database (no DATABASE_URL) is a single-machine install whose
 * generated secrets are fine.
 */
export function assertProductionSecrets(): void {
  if (env.NODE_ENV !== "production" || usesEmbeddedDatabase()) return;
  const bad = (["JWT_SECRET", "ENCRYPTION_KEY"] as const).filter((k) => isWeak(env[k]));
  if (bad.length) {
    throw new Error(
      `Refusing to start in production: ${bad.join(" and ")} ${bad.length > 1 ? "are" : "is"} missing or a default value. ` +
        "Set each to a random value of at least 32 characters (e.g. `openssl rand -base64 32`).",
    );
  }
}

export function secrets(): StoredSecrets {
  if (cached) return cached;
  const fromEnv = { jwtSecret: env.JWT_SECRET, encryptionKey: env.ENCRYPTION_KEY };
  const stored = fromEnv.jwtSecret && fromEnv.encryptionKey ? undefined : storedSecrets();
  cached = {
    jwtSecret: fromEnv.jwtSecret || stored!.jwtSecret,
    encryptionKey: fromEnv.encryptionKey || stored!.encryptionKey,
  };
  return cached;
}

/** Tests change the environment between cases. */
export function resetSecretsCache(): void {
  cached = undefined;
}
