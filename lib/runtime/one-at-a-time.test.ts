import { describe, expect, it } from "vitest";
import { oneAtATime } from "./one-at-a-time";

describe("oneAtATime", () => {
  it("runs the tasks of one key one after another, in order, and a failure does not stop the next", async () => {
    const events: string[] = [];
    let running = 0;
    const task = (name: string, fail = false) => async () => {
      running++;
      expect(running).toBe(1);
      events.push(`start ${name}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      events.push(`end ${name}`);
      running--;
      if (fail) throw new Error(name);
      return name;
    };
    const results = await Promise.allSettled([oneAtATime("k", task("a")), oneAtATime("k", task("b", true)), oneAtATime("k", task("c"))]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(events).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });

  it("runs tasks of different keys side by side", async () => {
    let release!: () => void;
    const blocked = oneAtATime("x", () => new Promise<void>((resolve) => (release = resolve)));
    await expect(oneAtATime("y", async () => "free")).resolves.toBe("free");
    release();
    await blocked;
  });
});
