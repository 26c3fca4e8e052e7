// Every operation's refusal names its action in the words a person uses.
import { describe, expect, it } from "vitest";
import { OPERATIONS } from "@/lib/contract";
import { OPERATION_VERBS, refusalVerb } from "./refusal-verbs";

const guarded = new Map(OPERATIONS.filter((op) => typeof op.permission === "object").map((op) => [op.operationId, op]));

describe("refusal verbs", () => {
  it("name only operations a [resource, action] permission guards", () => {
    const stale = Object.keys(OPERATION_VERBS).filter((id) => !guarded.has(id));
    expect(stale).toEqual([]);
  });

  it("say what the operation does, not the CRUD key that guards it", () => {
    const verb = (id: string) => refusalVerb(guarded.get(id)!);
    expect(verb("scheduleSync")).toBe("run syncs");
    expect(verb("startSequenceRun")).toBe("run syncs");
    expect(verb("cancelSyncRun")).toBe("cancel sync runs");
    expect(verb("approveSyncRun")).toBe("approve held sync runs");
    expect(verb("testSync")).toBe("send test rows through syncs");
    expect(verb("querySource")).toBe("run queries on sources");
    expect(verb("deleteConnector")).toBe("delete connectors");
    expect(verb("updateModel")).toBe("change models");
    expect(verb("createMember")).toBe("invite members");
    expect(verb("revokeApiToken")).toBe("revoke API tokens");
    expect(verb("rotateWebhookSecret")).toBe("rotate webhook secrets");
  });

  it("never fall back to a resource's key with an underscore or a CRUD word for reading", () => {
    for (const id of guarded.keys()) {
      const verb = refusalVerb(guarded.get(id)!);
      expect(verb, id).not.toMatch(/_|\bread\b(?! the audit log)/);
    }
  });
});
