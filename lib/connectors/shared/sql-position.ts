// Where in the user's own model query a database error points. The sources wrap the query
// (`SELECT * FROM (<query>\n) AS q LIMIT …`, after trimming it), so the database's position is in
// the wrapped text: subtract the wrapper's offset, add back what trimming removed, and say it as
// line and column of what the user typed.
import { ConnectorError } from "./errors";

export interface QueryPosition {
  /** 0-based offset into the user's query. */
  offset: number;
  line: number;
  column: number;
}

/** Line and column (1-based) of `offset` in `text`. */
export function positionAt(text: string, offset: number): QueryPosition {
  const at = Math.max(0, Math.min(offset, text.length));
  const before = text.slice(0, at);
  const line = before.split("\n").length;
  const column = at - (before.lastIndexOf("\n") + 1) + 1;
  return { offset: at, line, column };
}

/**
 * The user's offset of a position in the wrapped text. `inner` is the trimmed query as wrapped,
 * `innerAt` where it starts in the wrapped text; a position in the wrapper itself (after the query)
 * becomes the end of the query.
 */
export function userOffset(userQuery: string, inner: string, wrappedOffset: number, innerAt: number): number {
  // normalizeModelQuery trims the start and cuts only at the end: the query starts after the blanks.
  const lead = userQuery.length - userQuery.trimStart().length;
  return lead + Math.max(0, Math.min(wrappedOffset - innerAt, inner.length));
}

/** ` at line 2, column 8 of your query, near "nme FROM users"`. */
export function describePosition(userQuery: string, pos: QueryPosition): string {
  const rest = userQuery.slice(pos.offset).split("\n")[0].trimEnd();
  const near = rest.length > 40 ? `${rest.slice(0, 40)}…` : rest;
  return ` at line ${pos.line}, column ${pos.column} of your query${near ? `, near "${near}"` : " (its end)"}`;
}

/** PostgreSQL: a DatabaseError's `position` (1-based, in the text sent), mapped to the user's query. */
export function pgQueryError(err: unknown, userQuery: string, inner: string, innerAt: number, describe: (err: unknown) => string): unknown {
  const e = err as { position?: unknown; code?: unknown };
  const sent = typeof e.position === "string" || typeof e.position === "number" ? Number(e.position) : NaN;
  if (!Number.isInteger(sent) || sent < 1) return err;
  const pos = positionAt(userQuery, userOffset(userQuery, inner, sent - 1, innerAt));
  // The position goes with the database's sentence, before the "(SQLSTATE …)" describe adds.
  const sentence = describe(err);
  const state = / \(SQLSTATE \w+\)$/.exec(sentence);
  const text = state ? `${sentence.slice(0, state.index)}${describePosition(userQuery, pos)}${state[0]}` : `${sentence}${describePosition(userQuery, pos)}`;
  return new ConnectorError(text, typeof e.code === "string" ? e.code : undefined);
}

const MARIA_NEAR = /\s+near '([\s\S]*)' at line (\d+)\s*$/;

/**
 * MariaDB: a syntax error says `near '<the text from the error on>' at line N` of the text sent,
 * which goes on into the wrapper (`\n) AS q LIMIT 100`) and may be cut short. The text is found in
 * the user's query, from line N on (the wrapper adds no line before the query).
 */
export function mariaQueryError(err: unknown, userQuery: string, inner: string, wrapperTail: string, describe: (err: unknown) => string): unknown {
  const message = describe(err);
  // The SQLSTATE (42000 syntax, 42S22 unknown column…) says the fault is the query's, not the server's.
  const sqlState = (err as { sqlState?: unknown }).sqlState;
  const code = typeof sqlState === "string" ? sqlState : (err as { code?: unknown }).code;
  const m = MARIA_NEAR.exec(message);
  if (!m) return typeof sqlState === "string" && /^42/.test(sqlState) ? new ConnectorError(message, sqlState) : err;
  let near = m[1];
  const tail = near.indexOf(wrapperTail);
  let innerOffset: number;
  if (tail >= 0) {
    near = near.slice(0, tail);
    innerOffset = inner.length - near.length;
  } else {
    const lineStart = inner.split("\n").slice(0, Number(m[2]) - 1).join("\n").length;
    const found = inner.indexOf(near, Number(m[2]) > 1 ? lineStart : 0);
    if (found < 0) return err;
    innerOffset = found;
  }
  const pos = positionAt(userQuery, userOffset(userQuery, inner, innerOffset, 0));
  // "…; check the manual … to use" points at the wrapped text: the position replaces it.
  const head = message.slice(0, m.index).replace(/;\s*check the manual[\s\S]*$/, "");
  return new ConnectorError(`${head}${describePosition(userQuery, pos)}`, typeof code === "string" ? code : undefined);
}
