// docs/architecture.md's layer list is the map of lib/: it must name every folder there, and every
// import zone of the lint configuration must run down that list (a layer never imports one above it).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const doc = readFileSync(path.join(ROOT, "docs/architecture.md"), "utf8");
const layerBlock = doc.slice(doc.indexOf("## Layers and what they may import"), doc.indexOf("The rules that matter"));

/** The layer list's names in order, top first: `lib/x` and the shared leaves of one line. */
function layers(): string[] {
  const names: string[] = [];
  for (const line of layerBlock.split("\n")) {
    const head = /^(app\/|components\/|lib\/[\w-]+(?:, lib\/[\w-]+)*)/.exec(line);
    if (head) names.push(...head[1].split(", ").map((n) => n.replace(/\/$/, "")));
  }
  return names;
}

describe("docs/architecture.md's layer list", () => {
  it("names every folder of lib/ (generated code aside)", () => {
    const folders = readdirSync(path.join(ROOT, "lib"), { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name !== "generated")
      .map((d) => `lib/${d.name}`);
    expect(folders.filter((f) => !layers().includes(f))).toEqual([]);
  });

  it("holds the lint zones' order: each zone keeps a layer from importing one above it, or is a stated rule", () => {
    const config = readFileSync(path.join(ROOT, "eslint.config.mjs"), "utf8");
    const order = layers();
    const rank = (p: string) => order.findIndex((l) => p.replace(/^\.\//, "").startsWith(l));
    const zones = [...config.matchAll(/target:\s*"\.\/(lib\/[\w-]+)",\s*\n\s*from:\s*(\[[^\]]*\]|"[^"]*")/g)];
    expect(zones.length).toBeGreaterThan(0);
    for (const [, target, fromText] of zones) {
      for (const from of [...fromText.matchAll(/"\.\/(lib\/[\w-]+)"/g)].map((m) => m[1])) {
        const [t, f] = [rank(target), rank(from)];
        // A zone forbidding an import from above is the list's order; one from below is a stated rule.
        if (f < t) continue;
        expect(doc, `${target} may not import ${from}: say why in the rules below the list`).toContain(`\`${target}\``);
      }
    }
  });
});
