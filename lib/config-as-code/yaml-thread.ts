// Entry of the worker thread that reads a YAML body (yaml-off-thread.ts): the text in, the value or
// the reason out. Bundled, so it runs without a TypeScript loader.
import { parentPort, workerData } from "node:worker_threads";
import { ConfigSyntaxError, parseConfigYaml } from "./yaml";

export type YamlThreadAnswer = { ok: true; value: unknown } | { ok: false; syntax: boolean; message: string };

let answer: YamlThreadAnswer;
try {
  answer = { ok: true, value: parseConfigYaml(workerData as string) };
} catch (err) {
  answer = { ok: false, syntax: err instanceof ConfigSyntaxError, message: err instanceof Error ? err.message : String(err) };
}
parentPort?.postMessage(answer);
