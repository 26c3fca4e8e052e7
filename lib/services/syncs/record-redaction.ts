// Read-side redaction of what a record shows of its delivery. The engine scrubs logs before it
// stores them (run context `scrub`); this is the second line: the secrets the connectors hold now
// (a secret may have been rotated in since) and anything shaped like a credential header.
import "server-only";
import { envRedactor } from "@/lib/connectors/env-placeholders";
import { getDefinition } from "@/lib/connectors/registry";
import { redact, secretValues } from "@/lib/connectors/shared/secrets";
import { decryptJson } from "@/lib/crypto/encryption";
import { jsonObjectSchema } from "@/lib/validation/connectors";
import { prisma } from "@/lib/db/client";
import { maskCredentials } from "../catalogue/credential-mask";

/** A redactor for the texts of one sync's records: the secrets of its connectors, then credential shapes. */
export async function recordRedactor(connectorIds: number[]): Promise<(text: string) => string> {
  const connectors = await prisma().connector.findMany({ where: { id: { in: connectorIds } } });
  const secrets: string[] = [];
  const scrubbers: ((text: string) => string)[] = [];
  for (const c of connectors) {
    const stored = decryptJson(jsonObjectSchema, c.configurationEncrypted, `configuration of connector ${c.id}`);
    scrubbers.push(envRedactor(stored));
    const definition = getDefinition(c.connectorName);
    if (definition) secrets.push(...secretValues(stored, definition));
  }
  secrets.sort((a, b) => b.length - a.length);
  return (text) => maskCredentials(redact(scrubbers.reduce((t, s) => s(t), text), secrets));
}
