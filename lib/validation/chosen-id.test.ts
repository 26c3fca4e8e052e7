import { describe, expect, it } from "vitest";
import { chosenId, intId } from "./ids";

describe("chosenId", () => {
  const roleId = chosenId(intId(undefined, "a role id"), "Choose a role");

  it("passes a chosen id through", () => {
    expect(roleId.parse(7)).toBe(7);
  });

  it("refuses the unchosen (null) value with the form's message", () => {
    const result = roleId.safeParse(null);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.message)).toEqual(["Choose a role"]);
  });

  it("still refuses what the id schema refuses", () => {
    expect(roleId.safeParse(Number.NaN).success).toBe(false);
    expect(roleId.safeParse(0).success).toBe(false);
  });
});
