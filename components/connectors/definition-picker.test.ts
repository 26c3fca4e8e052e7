// The gallery's pure parts: which chip a definition is filed under, the search, and icon paths.
import { describe, expect, it } from "vitest";
import { iconPath } from "./connector-icon";
import { galleryCategory, matchesSearch } from "./definition-picker";

const openai = { name: "OpenAI", title: "OpenAI-compatible API", category: "AI Model" as const, sub_category: "LLM" };
const pg = { name: "Postgresql", title: "PostgreSQL", category: "Data Warehouse" as const, sub_category: "Relational Database" };

describe("connector gallery", () => {
  it("files a definition under its category, as the reference's gallery does", () => {
    expect(galleryCategory(openai)).toBe("AI Model");
    expect(galleryCategory(pg)).toBe("Data Warehouse");
  });

  it("matches every word of the search against title, name and category, ignoring case", () => {
    expect(matchesSearch(pg, "")).toBe(true);
    expect(matchesSearch(pg, "  postgres ")).toBe(true);
    expect(matchesSearch(openai, "ai model")).toBe(true);
    expect(matchesSearch(pg, "warehouse")).toBe(true);
    expect(matchesSearch(openai, "openai embeddings")).toBe(false);
    expect(matchesSearch(pg, "openai")).toBe(false);
  });

  it("loads icons from this server's own path, never from another origin or a non-image", () => {
    expect(iconPath("http://127.0.0.1:3000/icons/openai.svg")).toBe("/icons/openai.svg");
    expect(iconPath("https://evil.example/icons/x.svg")).toBe("/icons/x.svg");
    expect(iconPath("/icons/slack.svg")).toBe("/icons/slack.svg");
    expect(iconPath("javascript:alert(1)")).toBeNull();
    expect(iconPath("")).toBeNull();
    expect(iconPath(undefined)).toBeNull();
  });
});
