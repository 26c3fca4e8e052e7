// Large YAML bodies are read in a worker thread, with the inline reader's answers, while the calling
// thread goes on; past its time limit a file is refused with a sentence.
import { describe, expect, it } from "vitest";
import { ConfigSyntaxError, parseConfigYaml, stringifyConfigYaml } from "./yaml";
import { parseConfigYamlOffThread } from "./yaml-off-thread";

const large = (n: number) =>
  stringifyConfigYaml({ version: 1, models: Array.from({ length: n }, (_, i) => ({ slug: `model-${i}`, name: `Model ${i}`, query: `SELECT ${i}` })) });

describe("parseConfigYamlOffThread", () => {
  it("gives the inline reader's value and errors for a file past the inline size", async () => {
    const text = large(2000);
    expect(text.length).toBeGreaterThan(16 * 1024);
    expect(await parseConfigYamlOffThread(text)).toEqual(parseConfigYaml(text));
    const broken = `${text}\nversion: 2\n`;
    const inline = (() => {
      try {
        parseConfigYaml(broken);
      } catch (err) {
        return err;
      }
    })();
    await expect(parseConfigYamlOffThread(broken)).rejects.toEqual(inline);
    expect(inline).toBeInstanceOf(ConfigSyntaxError);
  });

  it("leaves the calling thread free while it reads", async () => {
    const text = large(30_000); // ~1.5 MB: seconds of parsing
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      await parseConfigYamlOffThread(text);
    } finally {
      clearInterval(timer);
    }
    // Read inline, the parse would have held the thread: no tick could have run until it ended.
    expect(ticks).toBeGreaterThan(5);
  }, 60_000);

  it("refuses a file that takes longer than the time limit, with a sentence", async () => {
    await expect(parseConfigYamlOffThread(large(30_000), { timeLimitMs: 50 })).rejects.toThrow(/took longer than 0.05 s to read; split it/);
  }, 60_000);
});
