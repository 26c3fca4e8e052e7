// Model query hygiene: one SELECT, looked for outside strings, quoted names and comments, tokenized
// as each database does, so the query cannot close the subquery it is wrapped in.
import { describe, expect, it } from "vitest";
import { modelSelect, subquery, type SqlDialect } from "./sql";

const both: SqlDialect[] = ["postgresql", "mariadb"];

describe("modelSelect", () => {
  it("accepts one SELECT or WITH … SELECT, also in parentheses, and trims a trailing ; and comment", () => {
    for (const d of both) {
      expect(modelSelect("SELECT * FROM t;", d)).toBe("SELECT * FROM t");
      expect(modelSelect("  with x as (select 1) select * from x -- note", d)).toBe("with x as (select 1) select * from x");
      expect(modelSelect("(SELECT 1) UNION (SELECT 2)", d)).toBe("(SELECT 1) UNION (SELECT 2)");
      expect(modelSelect("SELECT ';' AS a, \"x;)y\", 'it''s' /* ; ) */ FROM t", d)).toContain("FROM t");
    }
    expect(modelSelect("SELECT $q$ ; DROP ) $q$, E'a\\'b)' FROM t", "postgresql")).toContain("FROM t");
    expect(modelSelect("SELECT `z;)w`, 'a\\')' # ; )\nFROM t", "mariadb")).toContain("FROM t");
  });

  it("refuses other statements and a second statement, wherever the ; hides", () => {
    for (const d of both) {
      for (const query of ["DROP TABLE victim", "/* x */ DELETE FROM t", "CREATE USER evil", "INSERT INTO t SELECT 1", "SET ROLE admin", "CALL p()"]) {
        expect(() => modelSelect(query, d), query).toThrow(/must be a SELECT/);
      }
      for (const query of ["SELECT 1; DROP TABLE victim", "SELECT 1 -- x\n; DROP TABLE t", "SELECT 'a'; SELECT 2"]) {
        expect(() => modelSelect(query, d), query).toThrow(/single statement/);
      }
      expect(() => modelSelect("SELECT * FROM t LIMIT 10", d)).toThrow(/LIMIT or OFFSET/);
      expect(() => modelSelect("  -- only a comment", d)).toThrow(/empty/);
    }
  });

  it("refuses a query that closes its wrapping, writes with INTO or locks rows", () => {
    const attacks: [SqlDialect, string, RegExp][] = [
      ["mariadb", "SELECT 'x' AS a) AS s INTO OUTFILE '/tmp/f' #", /parentheses/],
      ["mariadb", "SELECT 1 --1) AS s INTO OUTFILE '/tmp/f' #\nFROM t", /parentheses/],
      ["mariadb", "SELECT 1 /*!) AS s INTO OUTFILE '/tmp/f' */", /executable comments/],
      ["mariadb", "SELECT 1 /*M!100000 ) */", /executable comments/],
      ["mariadb", "SELECT * FROM t INTO OUTFILE '/tmp/f'", /INTO/],
      ["mariadb", "SELECT a INTO @v FROM t", /INTO/],
      ["mariadb", "SELECT * FROM t FOR UPDATE", /FOR UPDATE/],
      ["mariadb", "SELECT * FROM t LOCK IN SHARE MODE", /LOCK IN SHARE MODE/],
      ["postgresql", "SELECT 1) AS s, (SELECT 2", /parentheses/],
      ["postgresql", "SELECT * INTO new_table FROM t", /INTO/],
      ["postgresql", "SELECT * FROM t FOR NO KEY UPDATE", /FOR NO KEY UPDATE/],
      // A backslash ends nothing in a standard PostgreSQL string: the ) is code, and unbalanced.
      ["postgresql", "SELECT 'a\\') AS s, (SELECT 1", /parentheses/],
    ];
    for (const [dialect, query, message] of attacks) expect(() => modelSelect(query, dialect), `${dialect}: ${query}`).toThrow(message);
    // A trailing `--…` is dropped as a comment before anything runs, whatever MariaDB would make of it.
    expect(modelSelect("SELECT 1 --1) AS s INTO OUTFILE '/tmp/f' #", "mariadb")).toBe("SELECT 1");
  });

  it("wraps with a line break, so a trailing comment cannot hide the closing bracket", () => {
    expect(subquery("SELECT 1 # note")).toBe("(SELECT 1 # note\n)");
  });
});
