// Model query hygiene: one SELECT, looked for outside strings, quoted names and comments, tokenized
// as each database does, so the query cannot close the subquery it is wrapped in.
import { describe, expect, it } from "vitest";
import { modelSelect, subquery } from "./sql";
import type { SqlDialect } from "./sql-lexing";

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

  it("refuses calls to functions that reach the server's files, large objects, settings or sessions, however they are written", () => {
    const attacks: [SqlDialect, string, string][] = [
      ["postgresql", "SELECT pg_read_file('/etc/passwd')", "pg_read_file"],
      ["postgresql", "SELECT * FROM pg_catalog.pg_read_file ( '/etc/passwd' )", "pg_read_file"],
      ["postgresql", 'SELECT "pg_read_file"(\'/etc/passwd\')', "pg_read_file"],
      ["postgresql", "SELECT PG_READ_BINARY_FILE/* x */('/etc/hostname')", "pg_read_binary_file"],
      ["postgresql", "SELECT lo_import('/etc/passwd')", "lo_import"],
      ["postgresql", "SELECT lo_get(16384)", "lo_get"],
      ["postgresql", "SELECT * FROM pg_ls_dir('/')", "pg_ls_dir"],
      ["postgresql", "SELECT set_config('statement_timeout', '0', true)", "set_config"],
      ["postgresql", "SELECT query_to_xml('select pg_read_file(''/etc/passwd'')', true, false, '')", "query_to_xml"],
      ["postgresql", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity", "pg_terminate_backend"],
      ["mariadb", "SELECT LOAD_FILE('/etc/passwd')", "load_file"],
      ["mariadb", "SELECT `load_file`('/etc/passwd')", "load_file"],
      ["mariadb", "SELECT load_file /* x */ ('/etc/passwd')", "load_file"],
      // PostgreSQL's block comments nest: ending this one at the first */ would take the quote for
      // the start of a string and hide the call in it.
      ["postgresql", "SELECT /* /* */ ' */ pg_read_file('/etc/passwd') AS x", "pg_read_file"],
      ["postgresql", "SELECT /* a /* b /* c */ */ ' */ lo_import('/etc/passwd') AS x", "lo_import"],
      // MariaDB ends a `--` comment's start at any control character, not only a space.
      ["mariadb", "SELECT 1 --\x01 '\n, LOAD_FILE('/etc/passwd') AS x", "load_file"],
      ["mariadb", "SELECT 1 --\x1f '\n, LOAD_FILE('/etc/passwd') AS x", "load_file"],
    ];
    for (const [dialect, query, name] of attacks) {
      expect(() => modelSelect(query, dialect), `${dialect}: ${query}`).toThrow(`The query must not call ${name}(): models read the database's rows`);
    }
    expect(() => modelSelect('SELECT U&"\\0070g_read_file"(\'/etc/passwd\')', "postgresql")).toThrow(/Unicode-escaped names/);
    // In strings, comments and column names they are only text.
    expect(modelSelect("SELECT 'pg_read_file(x)' AS a, lo_count, \"load_file\" -- pg_read_file(\nFROM t", "postgresql")).toContain("FROM t");
    expect(modelSelect("SELECT 'load_file(x)' AS a, pg_read_file FROM t", "mariadb")).toContain("FROM t");
  });

  it("wraps with a line break, so a trailing comment cannot hide the closing bracket", () => {
    expect(subquery("SELECT 1 # note")).toBe("(SELECT 1 # note\n)");
  });
  it("tokenizes GoogleSQL (BigQuery) and Trino (Athena) as their engines do", () => {
    // BigQuery: backtick names, backslash escapes, # and -- comments, double-quoted strings.
    expect(modelSelect("SELECT `a;)b`, 'it\\'s;)', \"x;)\" # ; )\nFROM `p.d.t`", "bigquery")).toContain("FROM `p.d.t`");
    expect(() => modelSelect("SELECT 1 --; )\n; DELETE FROM t WHERE true", "bigquery")).toThrow(/single statement/);
    expect(() => modelSelect("DELETE FROM `p.d.t` WHERE true", "bigquery")).toThrow(/must be a SELECT/);
    // Trino: '' escapes only (a backslash is plain text), double-quoted names.
    expect(modelSelect(`SELECT 'a\\', "x;)y" FROM "awsdatacatalog"."db"."t" -- ;`, "trino")).toContain('"db"."t"');
    expect(() => modelSelect("SELECT 'a\\'; DROP TABLE t", "trino")).toThrow(/single statement/);
    expect(() => modelSelect("SELECT * FROM t LIMIT 5", "trino")).toThrow(/LIMIT/);
  });

  it("reads GoogleSQL's triple-quoted and r/b-prefixed strings (BigQuery)", () => {
    // '''it's''' is one string: read as 'it' + 's' + '', the `;` after it was hidden.
    expect(() => modelSelect("SELECT '''it's''' ); DROP TABLE t; SELECT * FROM (SELECT 1", "bigquery")).toThrow(/single statement/);
    expect(() => modelSelect('SELECT """a"b""" ); DROP TABLE t; SELECT * FROM (SELECT 1', "bigquery")).toThrow(/single statement/);
    expect(modelSelect("SELECT '''it's; )''' AS a, \"\"\"x\"; )\"\"\" AS b, r'\\d;)' AS c, B'\\x00' AS d, rb'e' FROM t", "bigquery")).toContain("FROM t");
    expect(() => modelSelect("SELECT r'\\' ; DROP TABLE t; SELECT '", "bigquery")).toThrow(/raw string/);
    // GoogleSQL doubles no quote: 'a'''' is 'a' then an unclosed '''.
    expect(() => modelSelect("SELECT 'a'''' ; DROP TABLE t", "bigquery")).toThrow(/never closed/);
  });

  it("checks PostgreSQL and Redshift queries with and without backslash escapes", () => {
    // Redshift (and PostgreSQL with standard_conforming_strings off) ends nothing at \' : the `;` is code.
    const attack = "SELECT 'x\\' , ' ) AS a; COMMIT; DROP TABLE t; SELECT * FROM (SELECT 1";
    expect(() => modelSelect(attack, "redshift")).toThrow(/single statement/);
    // Read the standard way the second string is never closed (an error on such a server): refused too.
    expect(() => modelSelect(attack, "postgresql")).toThrow(/never closed/);
    expect(() => modelSelect("SELECT 'x\\' , ' ) AS a; DROP TABLE t; SELECT * FROM (SELECT 1, '", "postgresql")).toThrow(/single statement/);
    expect(() => modelSelect("SELECT 'a\\' , ' , pg_read_file('/etc/passwd') AS x, ''", "redshift")).toThrow(/must not call pg_read_file/);
    // Backslashes that close nothing either way, and E'…' strings, still pass.
    expect(modelSelect("SELECT 'C:\\dir' AS p, E'it\\'s' AS q FROM t", "redshift")).toContain("FROM t");
    expect(modelSelect("SELECT 'C:\\dir' AS p, E'it\\'s' AS q FROM t", "postgresql")).toContain("FROM t");
  });

  it("reads Presto's flat comments (trino) and Spark's raw strings (databricks)", () => {
    // PostgreSQL nests comments, Presto does not: `/* /* */` ends at the first */ there.
    expect(() => modelSelect("SELECT 1 /* /* */ ) AS q; DROP TABLE t; SELECT * FROM (SELECT 1 /* */", "trino")).toThrow(/single statement/);
    // r'\' is a whole string in Spark: the call after it is code.
    expect(() => modelSelect("SELECT r'\\' , reflect('java.lang.Runtime', 'getRuntime') AS x, '\\''", "databricks")).toThrow(/must not call reflect/);
    expect(() => modelSelect("SELECT R\"\\\" ; DROP TABLE t", "databricks")).toThrow(/single statement/);
    expect(modelSelect("SELECT r'\\d+' AS re, 'it\\'s' AS s FROM t", "databricks")).toContain("FROM t");
  });

  it("reads Oracle's q'…' alternative-quote strings as strings, so they hide no call, clause or statement", () => {
    // Read as plain strings, each q'[']' leaves a quote open and hides what follows until the next one.
    const attacks: [string, RegExp][] = [
      ["SELECT q'[']' AS a, utl_http.request(q'[http://169.254.169.254/latest/meta-data/]') AS b, q'[']' AS c FROM dual", /must not call utl_http\(\)/],
      ["SELECT q'[']' AS a, dbms_xmlgen.getxml(q'[SELECT * FROM dba_users]') AS b, q'[']' AS c FROM dual", /must not call dbms_xmlgen\(\)/],
      ["SELECT Q'{'}' AS a, UTL_FILE.FOPEN('DIR', 'f', 'r') AS b, nq'!'!' AS c FROM dual", /must not call utl_file\(\)/],
      ["SELECT q'[']' AS a FROM dual FOR UPDATE /* ' */", /must not use FOR UPDATE/],
      ["SELECT q'[']' AS a FROM dual; DELETE FROM t /* ' */", /single statement/],
      ["SELECT q'<'>' AS a FROM dual) x, (SELECT 1 FROM dual /* ' */", /parentheses/],
    ];
    for (const [query, error] of attacks) expect(() => modelSelect(query, "oracle"), query).toThrow(error);
    // Unclosed, or a blank as the delimiter (Oracle refuses it): refused rather than guessed.
    for (const query of ["SELECT q'[abc]x FROM dual", "SELECT q' a ' FROM dual", "SELECT nq'#abc' FROM dual"]) {
      expect(() => modelSelect(query, "oracle"), query).toThrow(/never closed/);
    }
    // Legitimate ones: a quote inside, partner brackets, any other character closing itself, nq, upper case.
    const ok = "SELECT q'[it's]' AS a, Q'{a}b}' AS b, nq'!x'y!' AS c, q'<'>' AS d, q'(x)' AS e, seq, 'q' AS f FROM t";
    expect(modelSelect(ok, "oracle")).toBe(ok);
    expect(modelSelect("SELECT freq, q'#utl_http.request(1)#' AS text FROM t", "oracle")).toContain("FROM t");
  });

  it("refuses Oracle's URI types, URI factory and Oracle Text, which open URLs and files", () => {
    const attacks: [string, string][] = [
      ["SELECT sys.urifactory.geturi('http://169.254.169.254/latest/meta-data/').getclob() FROM dual", "urifactory"],
      ["SELECT DBURITYPE('/SCOTT/EMP/ROW[EMPNO=7369]/ENAME').getclob() FROM dual", "dburitype"],
      ["SELECT xdburitype('/public/secret.txt').getclob() FROM dual", "xdburitype"],
      ["SELECT \"HTTPURITYPE\"('http://x/').getclob() FROM dual", "httpuritype"],
      ["SELECT ctxsys.ctx_doc.snippet('idx', '1', 'x') FROM dual", "ctxsys"],
      ["SELECT ctx_doc.policy_snippet('p', 'x', 'y') FROM dual", "ctx_doc"],
    ];
    for (const [query, name] of attacks) expect(() => modelSelect(query, "oracle"), query).toThrow(`The query must not call ${name}()`);
    expect(modelSelect("SELECT uri, context, ctx FROM t", "oracle")).toContain("FROM t");
  });

  it("refuses warehouse functions that reach outside the query's rows", () => {
    const attacks: [SqlDialect, string, string][] = [
      ["clickhouse", "SELECT * FROM icebergS3('http://x/t')", "icebergs3"],
      ["clickhouse", "SELECT * FROM icebergLocal('/var/lib/t')", "iceberglocal"],
      ["clickhouse", "SELECT * FROM deltaLakeLocal('/var/lib/t')", "deltalakelocal"],
      ["clickhouse", "SELECT * FROM arrowFlight('127.0.0.1:8815', 'd')", "arrowflight"],
      ["clickhouse", "SELECT * FROM ytsaurus('http://x', '//t', 'tok')", "ytsaurus"],
      ["clickhouse", "SELECT * FROM hudiCluster('c', 'http://x')", "hudicluster"],
      ["clickhouse", "SELECT * FROM azureBlobStorageCluster('c', 'x')", "azureblobstoragecluster"],
      ["snowflake", "SELECT SYSTEM$ENABLE_BEHAVIOR_CHANGE_BUNDLE('2024_01')", "system$enable_behavior_change_bundle"],
      ["snowflake", 'SELECT "SYSTEM$DISABLE_BEHAVIOR_CHANGE_BUNDLE"(\'2024_01\')', "system$disable_behavior_change_bundle"],
      ["snowflake", "SELECT system$typeof_x(1)", "system$typeof_x"],
      ["snowflake", "SELECT IDENTIFIER('SYSTEM$CANCEL_ALL_QUERIES')(1)", "identifier"],
      ["databricks", "SELECT secret('scope', 'key')", "secret"],
      ["databricks", "SELECT try_secret('scope', 'key')", "try_secret"],
      ["databricks", "SELECT http_request(conn => 'c', method => 'GET', path => '/')", "http_request"],
      ["databricks", "SELECT java_method('java.lang.System', 'exit', 0)", "java_method"],
    ];
    for (const [dialect, query, name] of attacks) {
      expect(() => modelSelect(query, dialect), `${dialect}: ${query}`).toThrow(`The query must not call ${name}()`);
    }
    expect(modelSelect("SELECT SYSTEM$TYPEOF(1), system$clustering_information('t') FROM t", "snowflake")).toContain("FROM t");
    expect(modelSelect("SELECT URLHierarchy(u), secret_code FROM t", "clickhouse")).toContain("FROM t");
  });
});
