import { describe, expect, it } from "vitest";
import { parsePage } from "@/lib/http/pagination";
import { useTestDatabase } from "@/tests/support/db";
import { audit, listAuditLogs } from "./audit";
import { newMember } from "@/tests/support/auth-fixtures";

useTestDatabase();

describe("audit log listing", () => {
  it("lists the workspace's entries newest first, filtered, paginated, never another workspace's", async () => {
    const a = await newMember("Admin");
    const b = await newMember("Admin");
    await audit(a.auth, "create", "sync", 1);
    await audit(a.auth, "update", "sync", 1, { changed: ["name"] });
    await audit(a.auth, "create", "connector", 7);
    await audit(b.auth, "create", "sync", 1);
    const all = await listAuditLogs(a.workspaceId, {}, parsePage(new URLSearchParams()));
    expect(all.total).toBe(3);
    expect(all.rows.map((r) => `${r.action} ${r.resourceType}`)).toEqual([
      "create connector",
      "update sync",
      "create sync",
    ]);
    expect(all.rows[0].user?.email).toBe(a.user.email);
    const syncOne = await listAuditLogs(
      a.workspaceId,
      { resource_type: "sync", resource_id: "1" },
      parsePage(new URLSearchParams()),
    );
    expect(syncOne.total).toBe(2);
    const byUser = await listAuditLogs(
      a.workspaceId,
      { user_id: b.user.id },
      parsePage(new URLSearchParams()),
    );
    expect(byUser.total).toBe(0);
    const second = await listAuditLogs(
      a.workspaceId,
      {},
      parsePage(new URLSearchParams("page=2&per_page=2")),
    );
    expect(second.rows.map((r) => r.action)).toEqual(["create"]);
  });
});
