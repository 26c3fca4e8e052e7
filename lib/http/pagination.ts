// Pagination (docs/architecture.md, "API rules", 2): `page`/`per_page` or `page[number]`/`page[size]`;
// default 25, max 100 (clamped); links are absolute and always carry all five keys.
import { BadRequest } from "@/lib/errors";
import type { Page } from "@/lib/page";

export type { Page };

export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 100;

/** The first of `names` present in the query, as a whole number of 1 or more (400 otherwise). */
function positiveInt(params: URLSearchParams, ...names: string[]): number | undefined {
  const name = names.find((n) => params.get(n) !== null);
  const raw = name === undefined ? null : params.get(name)!;
  if (raw === null || raw === "") return undefined;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    const message = `must be a whole number of 1 or more (got "${raw.slice(0, 40)}")`;
    throw new BadRequest(`The query parameter ${name} ${message}.`, { errors: [{ path: name!, in: "query", message }] });
  }
  return Number(raw);
}

export function parsePage(params: URLSearchParams): Page {
  const page = positiveInt(params, "page[number]", "page") ?? 1;
  const requested = positiveInt(params, "page[size]", "per_page", "page_size") ?? DEFAULT_PER_PAGE;
  const perPage = Math.min(requested, MAX_PER_PAGE);
  // Pages past any plausible data set would overflow OFFSET; treat them as empty pages.
  const skip = Math.min((page - 1) * perPage, Number.MAX_SAFE_INTEGER);
  return { page, perPage, skip, take: perPage };
}

export interface Links {
  self: string;
  first: string;
  prev: string | null;
  next: string | null;
  last: string;
}

export interface Meta {
  page: number;
  per_page: number;
  total_count: number;
  total_pages: number;
}

export function pageLinks(url: URL, page: Page, total: number): { links: Links; meta: Meta } {
  const totalPages = Math.max(1, Math.ceil(total / page.perPage));
  const at = (n: number) => {
    const u = new URL(url.toString());
    for (const key of ["page[number]", "page[size]", "page_size"]) u.searchParams.delete(key);
    u.searchParams.set("page", String(n));
    u.searchParams.set("per_page", String(page.perPage));
    return u.toString();
  };
  return {
    links: {
      self: at(page.page),
      first: at(1),
      prev: page.page > 1 ? at(Math.min(page.page - 1, totalPages)) : null,
      next: page.page < totalPages ? at(page.page + 1) : null,
      last: at(totalPages),
    },
    meta: { page: page.page, per_page: page.perPage, total_count: total, total_pages: totalPages },
  };
}
