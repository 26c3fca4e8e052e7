// DuckDB's glob syntax over file keys: `*` and `?` within one path segment, `[abc]` classes, `**`
// any number of segments. Used to pick the remote files a model query names before fetching them.

const GLOB_CHAR = /[*?[]/;

export function isGlob(pattern: string): boolean {
  return GLOB_CHAR.test(pattern);
}

/** The fixed start of a pattern up to its last `/` before the first glob character: what to list. */
export function listPrefix(pattern: string): string {
  const at = pattern.search(GLOB_CHAR);
  if (at < 0) return pattern;
  return pattern.slice(0, pattern.lastIndexOf("/", at) + 1);
}

const escape = (c: string) => c.replace(/[.+^${}()|\\\]]/g, "\\$&");

export function globToRegExp(pattern: string): RegExp {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*" && pattern[i + 1] === "*") {
      // `**/` is zero or more whole segments; a trailing `**` is anything.
      if (pattern[i + 2] === "/") {
        out += "(?:[^/]*/)*";
        i += 2;
      } else {
        out += ".*";
        i += 1;
      }
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "[") {
      const end = pattern.indexOf("]", i + 2);
      if (end < 0) out += "\\[";
      else {
        const body = pattern.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\");
        out += `[${body}]`;
        i = end;
      }
    } else out += escape(c);
  }
  return new RegExp(`^${out}$`);
}

export function matchesGlob(pattern: string, key: string): boolean {
  return isGlob(pattern) ? globToRegExp(pattern).test(key) : pattern === key;
}
