import { describe, expect, it } from "vitest";
import { errorOffset } from "./sql-editor";

describe("errorOffset", () => {
  it("finds the line and column the API names, in the query as typed", () => {
    const query = "\n  SELECT id,\n    , email FROM people";
    // The API saw the query trimmed: line 2, column 5 is the second comma.
    const at = errorOffset(query, 'syntax error at or near "," at line 2, column 5 of your query, near ", email"');
    expect(at).not.toBeNull();
    expect(query.slice(at!, at! + 7)).toBe(", email");
  });

  it("is null when the message names no place", () => {
    expect(errorOffset("SELECT 1", "connection refused")).toBeNull();
    expect(errorOffset("SELECT 1", "x at line 9, column 1 of your query")).toBeNull();
  });
});
