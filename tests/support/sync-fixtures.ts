// Test fixtures: the smallest valid sync of a workspace (placeholder connectors and model), for
// service tests that need runs and records to hang off a real sync row.
import { prisma } from "@/lib/db/client";

export async function bareSync(workspaceId: number) {
  const connector = (type: "source" | "destination") =>
    prisma().connector.create({
      data: {
        workspaceId,
        connectorType: type,
        connectorName: "Postgresql",
        name: `${type}-${Math.random()}`,
        configurationEncrypted: "x",
      },
    });
  const [source, destination] = [await connector("source"), await connector("destination")];
  const model = await prisma().model.create({
    data: { workspaceId, connectorId: source.id, name: "m", query: "select 1", primaryKey: "id" },
  });
  const sync = await prisma().sync.create({
    data: {
      workspaceId,
      sourceId: source.id,
      destinationId: destination.id,
      modelId: model.id,
      scheduleType: "manual",
      syncMode: "full_refresh",
      streamName: "s",
    },
  });
  return { sync, source, destination, model };
}
