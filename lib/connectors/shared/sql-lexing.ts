// How each SQL dialect tokenizes a model query: strings, quoted names and comments blanked so that
// sql.ts's model-query check sees only code. Split from sql.ts so the lexing (per dialect) and the
// check built on it each keep one file.
import { ConnectorError } from "./errors";

export type SqlDialect = "postgresql" | "redshift" | "mariadb" | "bigquery" | "trino" | "snowflake" | "databricks" | "clickhouse" | "oracle";

/**
 * How each dialect tokenizes what codeOnly blanks (BigQuery: GoogleSQL; trino: Athena's and Presto's
 * engines; databricks: Spark SQL; redshift: PostgreSQL's lexer with backslash escapes in strings).
 * Warehouses other than ClickHouse are checked as text only: they parse the statement themselves.
 */
interface DialectTraits {
  /** Names are quoted with backticks (else with double quotes). */
  backtickNames: boolean;
  /** Backslash escapes inside strings (and double-quoted strings, where names use backticks). */
  backslashEscapes: boolean;
  /** `#` starts a line comment. */
  hashComments: boolean;
  /** `--` is a comment only before whitespace (MariaDB). */
  dashNeedsSpace: boolean;
  /** Block comments nest (PostgreSQL). */
  nestedComments: boolean;
  /** `/*! … *\/` runs as code (MariaDB). */
  executableComments: boolean;
  /** $tag$…$tag$ strings and E'…' escapes (PostgreSQL). */
  dollarQuotes: boolean;
  /** Untagged $$…$$ strings (Snowflake). */
  plainDollarStrings: boolean;
  /** `//` starts a line comment (Snowflake). */
  slashComments: boolean;
  /** Triple-quoted strings and r/b/rb prefixes (GoogleSQL); no doubled-quote escapes. */
  googleStrings: boolean;
  /** r'…' strings without any escape (Spark SQL). */
  rawStrings: boolean;
  /** q'<delim>…<delim>' alternative-quote strings, also nq'…' (Oracle). */
  altQuotes?: boolean;
}

/** ClickHouse has its own tokenizer (clickhouseCodeOnly): its versions read comments and strings differently. */
const TRAITS: Record<Exclude<SqlDialect, "clickhouse">, DialectTraits> = {
  postgresql: { backtickNames: false, backslashEscapes: false, hashComments: false, dashNeedsSpace: false, nestedComments: true, executableComments: false, dollarQuotes: true, plainDollarStrings: false, slashComments: false, googleStrings: false, rawStrings: false },
  redshift: { backtickNames: false, backslashEscapes: true, hashComments: false, dashNeedsSpace: false, nestedComments: true, executableComments: false, dollarQuotes: true, plainDollarStrings: false, slashComments: false, googleStrings: false, rawStrings: false },
  mariadb: { backtickNames: true, backslashEscapes: true, hashComments: true, dashNeedsSpace: true, nestedComments: false, executableComments: true, dollarQuotes: false, plainDollarStrings: false, slashComments: false, googleStrings: false, rawStrings: false },
  bigquery: { backtickNames: true, backslashEscapes: true, hashComments: true, dashNeedsSpace: false, nestedComments: false, executableComments: false, dollarQuotes: false, plainDollarStrings: false, slashComments: false, googleStrings: true, rawStrings: false },
  trino: { backtickNames: false, backslashEscapes: false, hashComments: false, dashNeedsSpace: false, nestedComments: false, executableComments: false, dollarQuotes: false, plainDollarStrings: false, slashComments: false, googleStrings: false, rawStrings: false },
  snowflake: { backtickNames: false, backslashEscapes: true, hashComments: false, dashNeedsSpace: false, nestedComments: false, executableComments: false, dollarQuotes: false, plainDollarStrings: true, slashComments: true, googleStrings: false, rawStrings: false },
  databricks: { backtickNames: true, backslashEscapes: true, hashComments: false, dashNeedsSpace: false, nestedComments: true, executableComments: false, dollarQuotes: false, plainDollarStrings: false, slashComments: false, googleStrings: false, rawStrings: true },
  // Oracle: standard quoting, `--` and unnested block comments, and q'[…]' alternative-quote strings.
  oracle: { backtickNames: false, backslashEscapes: false, hashComments: false, dashNeedsSpace: false, nestedComments: false, executableComments: false, dollarQuotes: false, plainDollarStrings: false, slashComments: false, googleStrings: false, rawStrings: false, altQuotes: true },
};

/** How one reading of the query tokenizes it; a loose reading lets an unclosed string or comment pass. */
export interface Reading {
  traits: DialectTraits;
  strict: boolean;
}

/**
 * The readings a query must pass. A PostgreSQL server reads backslashes as escapes in '…' when
 * standard_conforming_strings is off (a role or database may set it so), Redshift always does: the
 * query must be one SELECT both ways. The other reading is loose: a string it leaves unclosed is an
 * error on a server reading that way, not hidden code.
 */
export function readings(dialect: SqlDialect): (Reading | undefined)[] {
  if (dialect !== "postgresql" && dialect !== "redshift") return [undefined];
  const other = dialect === "postgresql" ? "redshift" : "postgresql";
  return [
    { traits: TRAITS[dialect], strict: true },
    { traits: TRAITS[other], strict: false },
  ];
}

/** The r/b/rb prefix written against a quote (GoogleSQL), or r (Spark SQL); "" when none. */
function stringPrefix(query: string, quoteAt: number, t: DialectTraits): string {
  if (!t.googleStrings && !t.rawStrings) return "";
  const m = (t.googleStrings ? /(?:^|[^\w$])([rb]{1,2})$/i : /(?:^|[^\w$])(r)$/i).exec(query.slice(Math.max(0, quoteAt - 3), quoteAt));
  return m?.[1] ?? "";
}

const DOLLAR_TAG = /^\$(?:[A-Za-z_]\w*)?\$/;

/** Oracle's bracket delimiters of q'…' strings close with their partner; any other delimiter closes itself. */
const ALT_QUOTE_PARTNER: Record<string, string> = { "[": "]", "(": ")", "{": "}", "<": ">" };

/**
 * Where an Oracle alternative-quote string (q'<d>…<d>' or nq'<d>…<d>') whose quote is at `quoteAt`
 * ends, one past its final quote; undefined when the quote does not open one (no q, nq before it as
 * a token of its own), -1 when it is never closed. Read as a plain string, `q'[']'` would end at the
 * second quote and show the rest of the string as code (or hide code after it).
 */
function altQuoteEnd(query: string, quoteAt: number): number | undefined {
  if (!/(?:^|[^\w$#])n?q$/i.test(query.slice(Math.max(0, quoteAt - 3), quoteAt))) return undefined;
  const open = query.codePointAt(quoteAt + 1);
  // Oracle refuses a space, tab or line break as the delimiter: refused here as unclosed.
  if (open === undefined || /\s/.test(String.fromCodePoint(open))) return -1;
  const delimiter = String.fromCodePoint(open);
  const close = (ALT_QUOTE_PARTNER[delimiter] ?? delimiter) + "'";
  const end = query.indexOf(close, quoteAt + 1 + delimiter.length);
  return end === -1 ? -1 : end + close.length;
}

/** MariaDB takes `--` as a comment only before whitespace or a control character (or the end). */
const MARIADB_LINE_COMMENT_END = /^[\s\x00-\x1f\x7f]?$/;

/** Where a MariaDB block comment starting at `from` ends: at the first `*\/` (they do not nest); -1 when unclosed. */
function flatCommentEnd(query: string, from: number): number {
  const end = query.indexOf("*/", from + 2);
  return end === -1 ? -1 : end + 2;
}

/**
 * Where a PostgreSQL block comment starting at `from` ends: its comments nest, so `/* /* *\/ ' *\/`
 * is one comment (ending it at the first `*\/` would take the quote for code and hide what
 * follows); -1 when unclosed.
 */
function nestedCommentEnd(query: string, from: number): number {
  let depth = 0;
  let i = from;
  while (i < query.length) {
    if (query.startsWith("/*", i)) {
      depth++;
      i += 2;
    } else if (query.startsWith("*/", i)) {
      i += 2;
      if (--depth === 0) return i;
    } else i++;
  }
  return -1;
}

/**
 * The model query with every string, quoted name and comment blanked (same length), so keywords,
 * brackets and `;` can be looked for in what remains, tokenized as the database will: MariaDB
 * escapes with backslashes and comments with `#` and `-- ` (a space after), PostgreSQL has
 * $tag$…$tag$ and E'…' strings. MariaDB's executable comments (`/*! … *\/`) run as code, so they
 * are refused rather than blanked.
 */
export function codeOnly(query: string, dialect: SqlDialect, keepQuotedNames = false, reading?: Reading): string {
  if (dialect === "clickhouse") return clickhouseCodeOnly(query, keepQuotedNames);
  const t = reading?.traits ?? TRAITS[dialect];
  // An unclosed string or comment hides the rest of the query from this check; the database may read
  // it otherwise (a GoogleSQL ''' is an empty string when no ''' closes it), so it is refused.
  const unclosed = () => {
    if (reading?.strict !== false) throw new ConnectorError("The query has a string, quoted name or comment that is never closed.");
  };
  let out = "";
  let i = 0;
  const blank = (from: number, to: number) => {
    out += " ".repeat(to - from);
    i = to;
  };
  while (i < query.length) {
    const ch = query[i];
    const next = query[i + 1];
    const altEnd = t.altQuotes && ch === "'" ? altQuoteEnd(query, i) : undefined;
    if (altEnd !== undefined) {
      if (altEnd === -1) unclosed();
      blank(i, altEnd === -1 ? query.length : altEnd);
    } else if (ch === "'" || ch === '"' || (t.backtickNames && ch === "`")) {
      const prefix = ch === "`" ? "" : stringPrefix(query, i, t);
      const raw = /r/i.test(prefix);
      const close = t.googleStrings && ch !== "`" && query.startsWith(ch.repeat(3), i) ? ch.repeat(3) : ch;
      const eString = t.dollarQuotes && ch === "'" && /[eE]/.test(query[i - 1] ?? "") && !/\w/.test(query[i - 2] ?? "");
      // Backslashes escape inside strings, not inside double-quoted names (Snowflake) nor Spark's raw
      // strings; GoogleSQL escapes in every quoted token, its raw strings included (a quote after a
      // backslash does not close them), and doubles no quote.
      const escapes = t.googleStrings || (ch !== "`" && !(raw && t.rawStrings) && ((t.backslashEscapes && (ch === "'" || t.backtickNames)) || eString));
      let j = i + close.length;
      while (j < query.length) {
        if (escapes && query[j] === "\\") j += 2;
        else if (!t.googleStrings && query[j] === ch && query[j + 1] === ch) j += 2;
        else if (query.startsWith(close, j)) break;
        else j++;
      }
      if (j >= query.length) unclosed();
      // Whether a backslash keeps a GoogleSQL raw string open is read differently by tools: refused.
      if (raw && t.googleStrings && query.slice(i + close.length, j).includes("\\" + ch)) {
        throw new ConnectorError(`The query must not put a backslash before a quote in a raw string (r${ch}…${ch}): write the string without the r.`);
      }
      const quotedName = t.backtickNames ? ch === "`" : ch === '"';
      if (keepQuotedNames && quotedName) {
        // A quoted name stays visible (unquoted), so "pg_read_file"(…) is seen as a call.
        if (t.dollarQuotes && /u&$/i.test(out)) throw new ConnectorError('The query must not use Unicode-escaped names (U&"…"): write the name itself.');
        const name = query.slice(i + 1, j).replaceAll(ch + ch, ch);
        out += ` ${name} `;
        i = Math.min(j + 1, query.length);
      } else blank(i, Math.min(j + close.length, query.length));
    } else if (
      (ch === "-" && next === "-" && (!t.dashNeedsSpace || MARIADB_LINE_COMMENT_END.test(query[i + 2] ?? ""))) ||
      (t.hashComments && ch === "#") ||
      (t.slashComments && ch === "/" && next === "/")
    ) {
      const end = query.indexOf("\n", i);
      blank(i, end === -1 ? query.length : end);
    } else if (ch === "/" && next === "*") {
      if (t.executableComments && /^\/\*M?!/.test(query.slice(i, i + 4))) {
        throw new ConnectorError("The query must not contain executable comments (/*! … */).");
      }
      const end = t.nestedComments ? nestedCommentEnd(query, i) : flatCommentEnd(query, i);
      if (end === -1) unclosed();
      blank(i, end === -1 ? query.length : end);
    } else if (t.plainDollarStrings && ch === "$" && next === "$" && !/\w/.test(query[i - 1] ?? "")) {
      const end = query.indexOf("$$", i + 2);
      blank(i, end === -1 ? query.length : end + 2);
    } else if (t.dollarQuotes && ch === "$" && DOLLAR_TAG.test(query.slice(i, i + 64)) && !/\w/.test(query[i - 1] ?? "")) {
      const tag = DOLLAR_TAG.exec(query.slice(i, i + 64))![0];
      const end = query.indexOf(tag, i + tag.length);
      blank(i, end === -1 ? query.length : end + tag.length);
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

/**
 * codeOnly for ClickHouse: '…' strings and "…" / `…` names, each with backslash escapes and doubled
 * quotes; `--` comments whatever follows; block comments flat. What ClickHouse versions read
 * differently is refused rather than guessed: nested block comments, `#` comments (newer servers
 * only) and `$$` strings (newer servers only) would hide code from this check on one server and not
 * on another.
 */
function clickhouseCodeOnly(query: string, keepQuotedNames: boolean): string {
  let out = "";
  let i = 0;
  while (i < query.length) {
    const ch = query[i];
    if (ch === "'" || ch === '"' || ch === "`") {
      let j = i + 1;
      while (j < query.length) {
        if (query[j] === "\\") j += 2;
        else if (query[j] === ch && query[j + 1] === ch) j += 2;
        else if (query[j] === ch) break;
        else j++;
      }
      if (keepQuotedNames && ch !== "'") out += ` ${query.slice(i + 1, j).replace(/\\(.)/g, "$1")} `;
      else out += " ".repeat(Math.min(j + 1, query.length) - i);
      i = Math.min(j + 1, query.length);
    } else if (ch === "-" && query[i + 1] === "-") {
      const end = query.indexOf("\n", i);
      out += " ".repeat((end === -1 ? query.length : end) - i);
      i = end === -1 ? query.length : end;
    } else if (ch === "/" && query[i + 1] === "*") {
      const found = flatCommentEnd(query, i);
      const end = found === -1 ? query.length : found;
      if (query.slice(i + 2, end).includes("/*")) throw new ConnectorError("The query must not nest comments (/* /* */ */).");
      out += " ".repeat(end - i);
      i = end;
    } else if (ch === "#" || ch === "$") {
      throw new ConnectorError(`The query must not use "${ch}" outside strings: write comments with -- or /* */ and strings with '…'.`);
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}
