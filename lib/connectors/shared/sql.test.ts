// Model query hygiene: one SELECT, looked for outside strings, quoted names and comments.
import { describe, expect, it } from "vitest";
import { modelSelect } from "./sql";

describe("modelSelect", () => {
  it("accepts one SELECT or WITH … SELECT, also in parentheses, and trims a trailing ; and comment", () => {
    expect(modelSelect("SELECT * FROM t;")).toBe("SELECT * FROM t");
    expect(modelSelect("  with x as (select 1) select * from x -- note")).toBe("with x as (select 1) select * from x");
    expect(modelSelect("(SELECT 1) UNION (SELECT 2)")).toBe("(SELECT 1) UNION (SELECT 2)");
    expect(modelSelect("SELECT ';' AS a, \"x;y\", `z;w`, $q$ ; DROP $q$, 'it''s' /* ; */ FROM t")).toContain("FROM t");
  });

  it("refuses other statements and a second statement, wherever the ; hides", () => {
    for (const query of ["DROP TABLE victim", "/* x */ DELETE FROM t", "CREATE USER evil", "INSERT INTO t SELECT 1", "SET ROLE admin", "CALL p()"]) {
      expect(() => modelSelect(query), query).toThrow(/must be a SELECT/);
    }
    for (const query of ["SELECT 1; DROP TABLE victim", "SELECT 1 -- x\n; DROP TABLE t", "SELECT 'a'; SELECT 2"]) {
      expect(() => modelSelect(query), query).toThrow(/single statement/);
    }
    expect(() => modelSelect("SELECT * FROM t LIMIT 10")).toThrow(/LIMIT or OFFSET/);
    expect(() => modelSelect("  -- only a comment")).toThrow(/empty/);
  });
});
