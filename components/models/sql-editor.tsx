"use client";
// A textarea with a syntax-highlighted copy drawn underneath: the person types in a real textarea
// (selection, undo, screen readers and keyboard all native) and sees the coloured text through it.
import { useEffect, useRef } from "react";
import { cn } from "@/components/ui/cn";

const KEYWORDS = new Set(
  (
    "select from where and or not in is null as join left right inner outer full cross on group by order having limit offset " +
    "union all distinct case when then else end with insert update delete into values set create table view asc desc between " +
    "like ilike exists true false cast coalesce count sum avg min max over partition filter lateral using natural returning"
  ).split(" "),
);

type Token = { text: string; kind: "keyword" | "string" | "number" | "comment" | "ident" | "plain" };

export function tokenizeSql(sql: string): Token[] {
  const tokens: Token[] = [];
  const re = /(--[^\n]*|\/\*[\s\S]*?(?:\*\/|$))|('(?:[^']|'')*'?)|("(?:[^"]|"")*"?|`[^`]*`?)|(\b\d+(?:\.\d+)?\b)|([A-Za-z_][A-Za-z0-9_$]*)|(\s+|.)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(sql))) {
    if (m[1]) tokens.push({ text: m[1], kind: "comment" });
    else if (m[2]) tokens.push({ text: m[2], kind: "string" });
    else if (m[3]) tokens.push({ text: m[3], kind: "ident" });
    else if (m[4]) tokens.push({ text: m[4], kind: "number" });
    else if (m[5]) tokens.push({ text: m[5], kind: KEYWORDS.has(m[5].toLowerCase()) ? "keyword" : "plain" });
    else tokens.push({ text: m[0], kind: "plain" });
  }
  return tokens;
}

const COLORS: Record<Token["kind"], string> = {
  keyword: "text-indigo-700 font-semibold",
  string: "text-emerald-700",
  number: "text-amber-700",
  comment: "text-slate-400 italic",
  ident: "text-sky-700",
  plain: "text-slate-800",
};

export function HighlightedSql({ sql, className }: { sql: string; className?: string }) {
  return (
    <>
      {tokenizeSql(sql).map((t, i) => (
        <span key={i} className={cn(COLORS[t.kind], className)}>
          {t.text}
        </span>
      ))}
    </>
  );
}

const shared = "m-0 whitespace-pre-wrap break-words p-3 font-mono text-sm leading-6";

/**
 * Where in `query` a preview error points: the API says "at line L, column C of your query" of the
 * query as sent (trimmed), so the blanks before it are added back. Null when it says no place.
 */
export function errorOffset(query: string, message: string): number | null {
  const m = /at line (\d+), column (\d+) of your query/.exec(message);
  if (!m) return null;
  const lead = query.length - query.trimStart().length;
  const lines = query.trimStart().split("\n");
  const line = Number(m[1]);
  if (line < 1 || line > lines.length) return null;
  const before = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
  return Math.min(query.length, lead + before + Number(m[2]) - 1);
}

export function SqlEditor({
  id,
  value,
  onChange,
  invalid,
  describedBy,
  readOnly,
  rows = 8,
  focusAt,
}: {
  id?: string;
  value: string;
  onChange?: (value: string) => void;
  invalid?: boolean;
  describedBy?: string;
  readOnly?: boolean;
  rows?: number;
  /** Puts the caret there (and selects one character): where the database found the error. */
  focusAt?: number | null;
}) {
  const pre = useRef<HTMLPreElement>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (focusAt === null || focusAt === undefined || !area.current) return;
    area.current.focus();
    area.current.setSelectionRange(focusAt, Math.min(focusAt + 1, area.current.value.length));
  }, [focusAt]);
  return (
    <div
      className={cn(
        "relative rounded-md border bg-white shadow-sm focus-within:ring-2 focus-within:ring-indigo-500",
        invalid ? "border-red-400" : "border-slate-300",
      )}
    >
      <pre ref={pre} aria-hidden className={cn(shared, "pointer-events-none absolute inset-0 overflow-hidden")}>
        <HighlightedSql sql={value} />
        {"\n"}
      </pre>
      <textarea
        ref={area}
        id={id}
        value={value}
        readOnly={readOnly}
        onChange={(e) => onChange?.(e.target.value)}
        onScroll={(e) => {
          if (pre.current) pre.current.scrollTop = e.currentTarget.scrollTop;
        }}
        onKeyDown={(e) => {
          // Tab indents; Esc then Tab leaves the editor (keyboard users are never trapped).
          if (e.key === "Tab" && !e.shiftKey && !e.nativeEvent.isComposing && e.currentTarget.dataset.escaped !== "1") {
            e.preventDefault();
            const el = e.currentTarget;
            const { selectionStart: s, selectionEnd: end } = el;
            const next = `${value.slice(0, s)}  ${value.slice(end)}`;
            onChange?.(next);
            requestAnimationFrame(() => el.setSelectionRange(s + 2, s + 2));
          }
          e.currentTarget.dataset.escaped = e.key === "Escape" ? "1" : "0";
        }}
        rows={rows}
        spellCheck={false}
        autoCapitalize="off"
        autoComplete="off"
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        className={cn(shared, "relative block w-full resize-y bg-transparent text-transparent caret-slate-900 outline-none selection:bg-indigo-200")}
        style={{ WebkitTextFillColor: "transparent" }}
      />
    </div>
  );
}
