// A sync's write mode against its destination: the destination's definition names the modes it
// supports (docs/write-modes.md). Checked on create, and on update whenever the mode or the
// destination changes, so a stored sync never holds a mode its destination cannot write.
import "server-only";
import { getDefinition } from "@/lib/connectors/registry";
import type { FieldError } from "@/lib/errors";
import type { Prisma } from "@/lib/generated/prisma/client";
import { defaultWriteMode, supportedWriteModes, type WriteMode } from "@/lib/sync-rules/write-mode";

type Tx = Prisma.TransactionClient;

/** The destination's definition, when it is the workspace's destination with a known connector. */
async function destinationDefinition(tx: Tx, workspaceId: number, destinationId: number) {
  const destination = await tx.connector.findFirst({
    where: { id: destinationId, workspaceId, connectorType: "destination" },
    select: { connectorName: true },
  });
  return destination ? { name: destination.connectorName, definition: getDefinition(destination.connectorName, "destination") } : undefined;
}

/**
 * The mode to store and the errors, if any: `asked` (undefined when the request leaves it out) or
 * else `current` (the stored mode on update; on create the destination's default). A destination
 * that is not the workspace's is reported by the reference checks, not here.
 */
export async function resolveWriteMode(
  tx: Tx,
  workspaceId: number,
  destinationId: number,
  asked: WriteMode | undefined,
  current: WriteMode | undefined,
): Promise<{ mode: WriteMode; errors: FieldError[] }> {
  const found = await destinationDefinition(tx, workspaceId, destinationId);
  if (!found?.definition) return { mode: asked ?? current ?? "upsert", errors: [] };
  const mode = asked ?? current ?? defaultWriteMode(found.definition);
  const supported = supportedWriteModes(found.definition);
  if (supported.includes(mode)) return { mode, errors: [] };
  const why = asked === undefined ? ` (the sync's write mode is ${mode})` : "";
  const message = `${found.definition.title} destinations do not support write mode "${mode}"${why}; supported: ${supported.join(", ")}`;
  return { mode, errors: [{ path: "sync.write_mode", message }] };
}
