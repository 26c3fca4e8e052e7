// `npm start` must run the server with the flags the bench measures it with.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { WEB_NODE_FLAGS } from "./web-node-flags";

describe("WEB_NODE_FLAGS", () => {
  it("are what package.json's start script gives scripts/start.ts", () => {
    const pkg = JSON.parse(readFileSync(path.resolve(__dirname, "../package.json"), "utf8")) as { scripts: Record<string, string> };
    const words = pkg.scripts.start.split(/\s+/);
    expect(words.filter((w) => w.startsWith("--max-"))).toEqual([...WEB_NODE_FLAGS]);
    expect(words.indexOf(WEB_NODE_FLAGS[0])).toBeLessThan(words.indexOf("scripts/start.ts"));
  });
});
