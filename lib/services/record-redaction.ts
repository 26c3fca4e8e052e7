// Read-side redaction of what a record shows of its delivery. The engine scrubs logs before it
// stores them (run context `scrub`); this is the second line: the secrets the connectors hold now
// (a secret may have been rotated in since) and anything shaped like a credential header.
import "server-only";
import { envRedactor } from "@/lib/connectors/env-placeholders";
import { getDefinition } from "@/lib/connectors/registry";
import { redact, SECRET_MASK, secretValues } from "@/lib/connectors/shared/secrets";
import type { Row } from "@/lib/connectors/types";
import { decryptJson } from "@/lib/crypto/encryption";
import { prisma } from "@/lib/db/client";

/** `Authorization: Bearer x`, `api-key: x`, `"token": "x"`…: the value after a credential-like name. */
const CREDENTIAL =
  /((?:authorization|proxy-authorization|x-api-key|api[-_]?key|access[-_]?token|auth[-_]?token|token|password|secret|cookie|set-cookie)["']?\s*[:=]\s*["']?)((?:bearer|basic|token)\s+)?[^\s"',;}]+/gi;
const SCHEME_TOKEN = /\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi;

export function maskCredentials(text: string): string {
  return text.replace(CREDENTIAL, (_m, name: string, scheme: string | undefined) => `${name}${scheme ?? ""}${SECRET_MASK}`).replace(SCHEME_TOKEN, (_m, scheme: string) => `${scheme} ${SECRET_MASK}`);
}

/** A redactor for the texts of one sync's records: the secrets of its connectors, then credential shapes. */
export async function recordRedactor(connectorIds: number[]): Promise<(text: string) => string> {
  const connectors = await prisma().connector.findMany({ where: { id: { in: connectorIds } } });
  const secrets: string[] = [];
  const scrubbers: ((text: string) => string)[] = [];
  for (const c of connectors) {
    const stored = decryptJson<Row>(c.configurationEncrypted);
    scrubbers.push(envRedactor(stored));
    const definition = getDefinition(c.connectorName);
    if (definition) secrets.push(...secretValues(stored, definition));
  }
  secrets.sort((a, b) => b.length - a.length);
  return (text) => maskCredentials(redact(scrubbers.reduce((t, s) => s(t), text), secrets));
}
