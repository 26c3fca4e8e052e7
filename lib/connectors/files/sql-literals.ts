// The parts of a SQL text that may name files: single-quoted string literals ('s3://b/x.csv') and
// double-quoted identifiers ("people.csv"), found by a small scanner that skips comments and
// dollar-quoted text, so a rewrite never touches what is not a literal.

export interface SqlToken {
  kind: "string" | "identifier";
  /** The unquoted text. */
  value: string;
  start: number;
  /** Index just past the closing quote. */
  end: number;
}

export function sqlTokens(sql: string): SqlToken[] {
  const out: SqlToken[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "-" && sql[i + 1] === "-") {
      const nl = sql.indexOf("\n", i);
      i = nl < 0 ? sql.length : nl + 1;
    } else if (c === "/" && sql[i + 1] === "*") {
      const close = sql.indexOf("*/", i + 2);
      i = close < 0 ? sql.length : close + 2;
    } else if (c === "'" || c === '"') {
      const start = i;
      let value = "";
      i++;
      for (;;) {
        if (i >= sql.length) break;
        if (sql[i] === c) {
          if (sql[i + 1] === c) {
            value += c;
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += sql[i++];
      }
      out.push({ kind: c === "'" ? "string" : "identifier", value, start, end: i });
    } else if (c === "$") {
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i))?.[0];
      if (tag) {
        const close = sql.indexOf(tag, i + tag.length);
        i = close < 0 ? sql.length : close + tag.length;
      } else i++;
    } else i++;
  }
  return out;
}

export const quoteSqlText = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** `sql` with each token in `replacements` (by start index) replaced by the given text. */
export function replaceTokens(sql: string, replacements: Map<SqlToken, string>): string {
  const sorted = [...replacements.entries()].sort((a, b) => a[0].start - b[0].start);
  let out = "";
  let at = 0;
  for (const [token, text] of sorted) {
    out += sql.slice(at, token.start) + text;
    at = token.end;
  }
  return out + sql.slice(at);
}
