import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { useTestDatabase } from "./support/db";

useTestDatabase();

describe("test harness", () => {
  it("gives each file its own migrated database", async () => {
    const ws = await prisma().workspace.create({ data: { name: "Harness", slug: "harness" } });
    expect(ws.id).toBeGreaterThan(0);
    const count = await prisma().workspace.count();
    expect(count).toBe(1);
  });
});
