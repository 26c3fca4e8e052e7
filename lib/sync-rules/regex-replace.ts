// The regex_replace filter's engine. Patterns and values both come from workspace members, so the
// pattern runs on RE2 (re2js, pure JavaScript): no backtracking, so `(a+)+$` cannot take exponential
// time. RE2 is linear per search, but a global replace searches once per match, so a render's time
// limit is checked between matches, and pattern size × value length is bounded for a single search.
import { RE2JS } from "re2js";

export class RegexReplaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RegexReplaceError";
  }
}

/** pattern instructions × value characters for one call: about 0.3 s of matching at worst. */
export const REGEX_WORK_LIMIT = 20_000_000;

/** Pattern size with counted repetitions expanded: compiling costs time and memory in proportion. */
export const REGEX_SIZE_LIMIT = 50_000;

/** Index just past the `}` or `]` that closes what starts at `from`, skipping escapes. */
function skipPast(pattern: string, from: number, close: string): number {
  for (let i = from; i < pattern.length; i++) {
    if (pattern[i] === "\\") i++;
    else if (pattern[i] === close && !(close === "]" && i === from)) return i + 1;
  }
  return pattern.length;
}

/**
 * An upper estimate of the pattern's size once `{n,m}` repetitions are expanded (RE2 compiles
 * `a{1000}` as a thousand copies), made before compiling: a 5,000-character pattern can otherwise
 * take seconds and hundreds of MB to compile.
 */
export function expandedSize(pattern: string): number {
  const frames: { size: number; last: number }[] = [{ size: 0, last: 0 }];
  const add = (atom: number) => {
    const top = frames[frames.length - 1];
    top.size += atom;
    top.last = atom;
  };
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i];
    const top = frames[frames.length - 1];
    if (ch === "\\") {
      i = /[pPx]/.test(pattern[i + 1] ?? "") && pattern[i + 2] === "{" ? skipPast(pattern, i + 3, "}") : i + 2;
      add(1);
    } else if (ch === "[") {
      i = skipPast(pattern, pattern[i + 1] === "^" ? i + 2 : i + 1, "]");
      add(1);
    } else if (ch === "(") {
      frames.push({ size: 1, last: 0 });
      i++;
    } else if (ch === ")" && frames.length > 1) {
      const group = frames.pop() as { size: number };
      add(group.size);
      i++;
    } else if (ch === "{" && /^\{\d+(,\d*)?\}/.test(pattern.slice(i, i + 16))) {
      const [, low, high] = /^\{(\d+)(?:,(\d*))?\}/.exec(pattern.slice(i, i + 16)) as RegExpExecArray;
      const times = high === undefined ? Number(low) : high === "" ? Number(low) + 1 : Number(high);
      top.size += top.last * Math.max(0, times - 1);
      top.last *= Math.max(1, times);
      i = skipPast(pattern, i, "}");
    } else {
      add(1);
      i++;
    }
  }
  return frames.reduce((sum, f) => sum + f.size, 0);
}

/** Ruby's `x` flag: unescaped whitespace and `#` comments in the pattern are ignored (outside classes). */
function stripExtended(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\") {
      out += ch + (pattern[i + 1] ?? "");
      i++;
      continue;
    }
    if (inClass) {
      if (ch === "]") inClass = false;
      out += ch;
      continue;
    }
    if (ch === "[") {
      inClass = true;
      out += ch;
    } else if (ch === "#") {
      while (i < pattern.length && pattern[i] !== "\n") i++;
    } else if (!/\s/.test(ch)) {
      out += ch;
    }
  }
  return out;
}

function quoted(text: string): string {
  return JSON.stringify(text);
}

/** `\k<name>`: a backreference that translateRegExp would silently turn into the letters "k<name>". */
function hasNamedBackreference(source: string): boolean {
  for (let i = 0; i < source.length; i++) {
    if (source[i] !== "\\") continue;
    if (source[i + 1] === "k" && source[i + 2] === "<") return true;
    i++;
  }
  return false;
}

function backreferenceError(source: string): RegexReplaceError {
  return new RegexReplaceError(
    `regex_replace: the pattern ${quoted(source)} uses a backreference (\\1, \\k<name>), which RE2 patterns do not support.`,
  );
}

/** RE2's parse error as a sentence; the two features people miss most get named. */
function patternError(source: string, err: unknown): RegexReplaceError {
  const detail = (err instanceof Error ? err.message : String(err)).replace(/^error parsing regexp: /, "");
  if (/\(\?<?[=!]/.test(source) && /Perl syntax|named capture/.test(detail)) {
    return new RegexReplaceError(
      `regex_replace: the pattern ${quoted(source)} uses lookahead or lookbehind ((?=…), (?!…), (?<=…), (?<!…)), which RE2 patterns do not support.`,
    );
  }
  if (/invalid escape sequence: `\\[1-9]/.test(detail)) {
    return backreferenceError(source);
  }
  return new RegexReplaceError(`regex_replace: invalid pattern ${quoted(source)}: ${detail}.`);
}

const cache = new Map<string, RE2JS>();

/** Compiled once per (pattern, flags): templates run per row, patterns rarely change. */
export function compileRegex(pattern: unknown, flags: unknown): RE2JS {
  const source = String(pattern ?? "");
  const flagText = flags === undefined || flags === null ? "" : String(flags);
  const cacheKey = `${flagText}\u0000${source}`;
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  let re2Flags = 0;
  for (const flag of flagText) {
    if (flag === "i") re2Flags |= RE2JS.CASE_INSENSITIVE;
    else if (flag === "m") re2Flags |= RE2JS.MULTILINE;
    else if (flag !== "x") throw new RegexReplaceError(`regex_replace: unknown flag "${flag}"; allowed flags are i, m and x.`);
  }
  const expanded = flagText.includes("x") ? stripExtended(source) : source;
  if (hasNamedBackreference(expanded)) throw backreferenceError(source);
  if (expandedSize(expanded) > REGEX_SIZE_LIMIT) {
    throw new RegexReplaceError(
      `regex_replace: the pattern ${quoted(source)} is too large once its {n} repetitions are expanded (limit ${REGEX_SIZE_LIMIT.toLocaleString("en-US")}); use fewer or smaller repetitions.`,
    );
  }
  let regex: RE2JS;
  try {
    // translateRegExp accepts JavaScript spellings RE2 writes differently: (?<name>…), \u00e9, \u{1F600}.
    regex = RE2JS.compile(RE2JS.translateRegExp(expanded), re2Flags);
  } catch (err) {
    throw patternError(source, err);
  }
  if (cache.size > 500) cache.clear();
  cache.set(cacheKey, regex);
  return regex;
}

/**
 * JavaScript's replacement patterns (String.prototype.replace): $$, $&, $`, $', $1…$99, $<name>.
 * Unknown references stay as written, as in JavaScript.
 */
export function expandReplacement(
  replacement: string,
  match: { text: string; index: number; captures: (string | undefined)[]; named?: Record<string, string | undefined> },
  input: string,
): string {
  if (!replacement.includes("$")) return replacement;
  const group = (n: number) => n >= 1 && n <= match.captures.length;
  let out = "";
  for (let i = 0; i < replacement.length; i++) {
    const ch = replacement[i];
    const next = replacement[i + 1];
    if (ch !== "$" || next === undefined) {
      out += ch;
    } else if (next === "$") {
      out += "$";
      i++;
    } else if (next === "&") {
      out += match.text;
      i++;
    } else if (next === "`") {
      out += input.slice(0, match.index);
      i++;
    } else if (next === "'") {
      out += input.slice(match.index + match.text.length);
      i++;
    } else if (next >= "0" && next <= "9") {
      const two = replacement[i + 2] >= "0" && replacement[i + 2] <= "9" ? Number(next + replacement[i + 2]) : NaN;
      if (group(two)) {
        out += match.captures[two - 1] ?? "";
        i += 2;
      } else if (group(Number(next))) {
        out += match.captures[Number(next) - 1] ?? "";
        i++;
      } else {
        out += "$";
      }
    } else if (next === "<" && match.named) {
      const close = replacement.indexOf(">", i + 2);
      if (close < 0) {
        out += "$";
      } else {
        out += match.named[replacement.slice(i + 2, close)] ?? "";
        i = close;
      }
    } else {
      out += "$";
    }
  }
  return out;
}

/** What a render allows: `tick` throws once its time is up, `charge` once too much text was built. */
export interface ReplaceBudget {
  tick(): void;
  charge(characters: number): void;
}

/** Replaces every match, like JavaScript's replace with a global RegExp. */
export function regexReplace(input: string, regex: RE2JS, replacement: string, budget: ReplaceBudget): string {
  if (input.length * regex.programSize() > REGEX_WORK_LIMIT) {
    throw new RegexReplaceError(
      `regex_replace: the pattern ${quoted(regex.pattern())} is too complex for a value of ${input.length.toLocaleString("en-US")} characters; use a simpler pattern or a shorter value.`,
    );
  }
  budget.charge(input.length);
  const names = Object.entries(regex.namedGroups());
  const matcher = regex.matcher(input);
  let out = "";
  let last = 0;
  while (matcher.find()) {
    budget.tick();
    const captures: (string | undefined)[] = [];
    for (let g = 1; g <= matcher.groupCount(); g++) captures.push(matcher.group(g) ?? undefined);
    const named = names.length > 0 ? Object.fromEntries(names.map(([name, g]) => [name, captures[g - 1]])) : undefined;
    const start = matcher.start();
    const text = expandReplacement(replacement, { text: matcher.group() ?? "", index: start, captures, named }, input);
    budget.charge(text.length);
    out += input.slice(last, start) + text;
    last = matcher.end();
  }
  return out + input.slice(last);
}
