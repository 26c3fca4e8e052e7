// Slugs: how a configuration file names the workspace's objects (docs/config-as-code.md). Derived
// from the name, so nothing is stored: lower case, accents dropped, every run of other characters
// one dash, at most 63 characters; an empty result is the kind's noun (an unnamed sync is "sync").
// Two objects of a kind with the same slug are told apart by id order: the older keeps the slug,
// the next gets "-2", then "-3"… Pure, so the CLI and the tests use it as the server does.
import { SLUG_PATTERN } from "@/lib/validation/config";

const MAX = 63;

export function slugify(name: string, fallback: string): string {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX)
    .replace(/-+$/g, "");
  return base || fallback;
}

/** The slug of each object, by id: unique in the list, older objects (smaller ids) first. */
export function assignSlugs(objects: readonly { id: number; name: string }[], fallback: string): Map<number, string> {
  const out = new Map<number, string>();
  const taken = new Set<string>();
  for (const o of [...objects].sort((a, b) => a.id - b.id)) {
    const base = slugify(o.name, fallback);
    let slug = base;
    for (let n = 2; taken.has(slug); n++) {
      const suffix = `-${n}`;
      slug = `${base.slice(0, MAX - suffix.length).replace(/-+$/g, "")}${suffix}`;
    }
    taken.add(slug);
    out.set(o.id, slug);
  }
  return out;
}

export const isSlug = (s: string): boolean => SLUG_PATTERN.test(s);
