import { describe, expect, it } from "vitest";
import { ACTIVE_RUN_STATUSES as ENGINE_ACTIVE } from "@/lib/engine";
import { ACTIVE_RUN_STATUSES } from "./statuses";

describe("console run statuses", () => {
  it("treat as active exactly the runs the engine treats as active", () => {
    expect([...ACTIVE_RUN_STATUSES].sort()).toEqual([...ENGINE_ACTIVE].sort());
  });
});
