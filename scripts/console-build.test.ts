import { describe, expect, it } from "vitest";
import { routeTableFilter } from "./console-build";

// The shape of `next build`'s output (Next 16, Turbopack), shortened.
const OUTPUT = `▲ Next.js 16.4.6 (Turbopack)
  Creating an optimized production build ...
✓ Compiled successfully in 9.0min
✓ Generating static pages using 1 worker (40/40) in 17.4s
  Finalizing page optimization ...

Route (app)
┌ ƒ /
├ ƒ /_not-found
├ ƒ /api/v1/syncs/[id]
└ ƒ /verify-user


ƒ Proxy (Middleware)

○  (Static)   prerendered as static content
ƒ  (Dynamic)  server-rendered on demand

✓ Finished writing to filesystem cache in 4.3min
Error: something after the table`;

const kept = (text: string) => text.split("\n").filter(routeTableFilter());

describe("npm start's build output", () => {
  it("leaves out the route table and its legend, and nothing else", () => {
    const lines = kept(OUTPUT);
    expect(lines.join("\n")).not.toMatch(/Route \(app\)|\/api\/v1|Dynamic|Middleware|verify-user/);
    expect(lines).toEqual([
      "▲ Next.js 16.4.6 (Turbopack)",
      "  Creating an optimized production build ...",
      "✓ Compiled successfully in 9.0min",
      "✓ Generating static pages using 1 worker (40/40) in 17.4s",
      "  Finalizing page optimization ...",
      "",
      "✓ Finished writing to filesystem cache in 4.3min",
      "Error: something after the table",
    ]);
  });

  it("keeps every line of a build that fails before the table, colours or not", () => {
    const failed = "\x1b[31mFailed to compile.\x1b[39m\n\n./app/page.tsx:3:1\nType error: x is not defined\n> Build failed because of webpack errors";
    expect(kept(failed)).toEqual(failed.split("\n"));
    expect(kept("\x1b[1mRoute (app)\x1b[22m\n┌ ƒ /\n\x1b[32m✓\x1b[39m done")).toEqual(["\x1b[32m✓\x1b[39m done"]);
  });
});
