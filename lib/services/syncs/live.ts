// Whether a sync may run live (docs/live-syncs.md): its source streams changes (PostgreSQL with
// wal_level=logical), its model is one table filtered on its own columns and keyed by the table's
// primary key, and it diffs (incremental, no cursor). Each refusal is a 422 saying what to change.
import "server-only";
import { adapterConfig } from "@/lib/connectors/adapter-config";
import { loadSource } from "@/lib/connectors/registry";
import { ConnectorError } from "@/lib/connectors/shared/errors";
import { redact, secretValues } from "@/lib/connectors/shared/secrets";
import { decryptJson } from "@/lib/crypto/encryption";
import type { FieldError } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import { jsonObjectSchema } from "@/lib/validation/connectors";

type Tx = Prisma.TransactionClient;

export interface LiveCandidate {
  sourceId: number;
  modelId: number;
  syncMode: string;
  cursorField: string | null;
}

/** The reasons the sync cannot run live, as field errors of `sync.live`; none when it can. */
export async function liveErrors(tx: Tx, workspaceId: number, s: LiveCandidate): Promise<FieldError[]> {
  const path = "sync.live";
  if (s.syncMode !== "incremental") return [{ path, message: "needs sync_mode incremental: a live sync sends only the rows that changed" }];
  if (s.cursorField) return [{ path, message: "needs no cursor_field: a live sync reads every change from the source's log, not from a cursor" }];
  const source = await tx.connector.findFirst({ where: { id: s.sourceId, workspaceId } });
  const model = await tx.model.findFirst({ where: { id: s.modelId, workspaceId } });
  // Missing references have their own errors (referenceErrors).
  if (!source || !model) return [];
  const connector = await loadSource(source.connectorName);
  if (!connector.live) return [{ path, message: `is not available for ${connector.definition.name} sources: live syncs stream PostgreSQL sources` }];
  if (!model.primaryKey) return [{ path, message: "needs a model with a primary key" }];
  const stored = decryptJson(jsonObjectSchema, source.configurationEncrypted, `configuration of connector ${source.id}`);
  const config = adapterConfig(connector.definition, stored, workspaceId);
  try {
    const check = await connector.live.check(config, { query: model.query, primaryKey: model.primaryKey });
    return check.ok ? [] : [{ path, message: `cannot be on: ${check.reason}` }];
  } catch (err) {
    if (!(err instanceof ConnectorError)) throw err;
    // The server may repeat a credential in its error: never shown.
    const secrets = secretValues(config, connector.definition).sort((a, b) => b.length - a.length);
    return [{ path, message: `cannot be checked: the source answered "${redact(err.message, secrets)}"` }];
  }
}
