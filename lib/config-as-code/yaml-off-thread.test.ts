// Large YAML bodies are read in a worker thread, with the inline reader's answers, while the calling
// thread goes on; past its time limit a file is refused with a sentence.
import { describe, expect, it } from "vitest";
import { ConfigSyntaxError, parseConfigYaml, stringifyConfigYaml } from "./yaml";
import { parseConfigYamlOffThread } from "./yaml-off-thread";
import { RateLimited } from "@/lib/errors";

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
      // The time limit is not what this measures: a loaded machine (CI, parallel runs) may take far
      // longer than the default 20 s for 1.5 MB, and that must not fail the test.
      await parseConfigYamlOffThread(text, { timeLimitMs: 170_000 });
    } finally {
      clearInterval(timer);
    }
    // Read inline, the parse would have held the thread: no tick could have run until it ended.
    expect(ticks).toBeGreaterThan(5);
  }, 180_000);

  it("refuses a file that takes longer than the time limit, with a sentence", async () => {
    await expect(parseConfigYamlOffThread(large(30_000), { timeLimitMs: 50 })).rejects.toThrow(/took longer than 0.05 s to read; split it/);
  }, 60_000);
});

describe("the YAML readers' queue", () => {
  it("refuses a file with 429 once both threads are busy and eight files wait, and reads the others", async () => {
    const text = large(600);
    const reads = Array.from({ length: 10 }, () => parseConfigYamlOffThread(text));
    // Two read, eight wait: one more is refused at once, not queued without bound.
    await expect(parseConfigYamlOffThread(text)).rejects.toBeInstanceOf(RateLimited);
    await expect(parseConfigYamlOffThread(text)).rejects.toThrow(/already reading several large YAML files/);
    const values = await Promise.all(reads);
    expect(values.every((v) => JSON.stringify(v) === JSON.stringify(parseConfigYaml(text)))).toBe(true);
    // Slots free again.
    expect(await parseConfigYamlOffThread(text)).toEqual(parseConfigYaml(text));
  }, 120_000);
});
