import { describe, expect, it } from "vitest";
import { ConnectorError } from "./errors";
import { mariaQueryError, pgQueryError, positionAt } from "./sql-position";
import { subquery } from "./sql";

const describeMessage = (e: unknown) => (e as Error).message;

describe("positionAt", () => {
  it("gives 1-based line and column", () => {
    expect(positionAt("ab\ncd", 4)).toEqual({ offset: 4, line: 2, column: 2 });
    expect(positionAt("abc", 0)).toEqual({ offset: 0, line: 1, column: 1 });
  });
});

describe("pgQueryError", () => {
  it("maps the wrapped query's position back to the user's text", () => {
    const user = "\n  SELECT id,, name\nFROM users;";
    const inner = "SELECT id,, name\nFROM users";
    const text = `SELECT * FROM ${subquery(inner)} AS q LIMIT $1`;
    // PostgreSQL points at the second comma, 1-based, in the text sent.
    const sent = text.indexOf(",,") + 2;
    const err = Object.assign(new Error('syntax error at or near ","'), { position: String(sent), code: "42601" });
    const mapped = pgQueryError(err, user, inner, text.indexOf("(") + 1, describeMessage);
    expect(mapped).toBeInstanceOf(ConnectorError);
    expect((mapped as ConnectorError).message).toBe('syntax error at or near "," at line 2, column 13 of your query, near ", name"');
    expect((mapped as ConnectorError).code).toBe("42601");
  });

  it("keeps the SQLSTATE at the end", () => {
    const err = Object.assign(new Error('column "nme" does not exist'), { position: "23", code: "42703" });
    const mapped = pgQueryError(err, "SELECT nme FROM t", "SELECT nme FROM t", 15, (e) => `${(e as Error).message} (SQLSTATE 42703)`);
    expect((mapped as Error).message).toBe('column "nme" does not exist at line 1, column 8 of your query, near "nme FROM t" (SQLSTATE 42703)');
  });

  it("leaves errors without a position alone", () => {
    const err = new Error("connection refused");
    expect(pgQueryError(err, "SELECT 1", "SELECT 1", 15, describeMessage)).toBe(err);
  });
});

describe("mariaQueryError", () => {
  it("finds the near text in the user's query, without the wrapper", () => {
    const user = "SELECT id,, name FROM users";
    const err = Object.assign(
      new Error("You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near ', name FROM users\n) AS q LIMIT 100' at line 1"),
      { code: "ER_PARSE_ERROR", sqlState: "42000" },
    );
    const mapped = mariaQueryError(err, user, user, "\n) AS q", describeMessage) as ConnectorError;
    expect(mapped.message).toBe(
      'You have an error in your SQL syntax at line 1, column 11 of your query, near ", name FROM users"',
    );
    expect(mapped.message).not.toContain("AS q");
    expect(mapped.code).toBe("42000");
  });

  it("finds a cut-short near text on its line", () => {
    const user = "SELECT id\nFROM users WHERE id = = 1";
    const err = Object.assign(new Error("You have an error in your SQL syntax; check the manual for the right syntax to use near '= 1' at line 2"), {
      sqlState: "42000",
    });
    const mapped = mariaQueryError(err, user, user, "\n) AS q", describeMessage) as ConnectorError;
    expect(mapped.message).toContain("at line 2, column 23 of your query");
  });
});
