// The results table: every figure with its same-run baseline, the ratio, the target and PASS/MISS.
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export interface Figure {
  section: string;
  name: string;
  value: number;
  unit: string;
  /** The same-run measurement this figure is compared with. */
  baseline?: { name: string; value: number; unit: string };
  /** value / baseline.value unless given. */
  ratio?: number;
  /** Human-readable target and whether it is met. */
  target?: string;
  pass?: boolean;
  note?: string;
}

export class Report {
  readonly figures: Figure[] = [];
  readonly notes: string[] = [];
  readonly extra: Record<string, unknown> = {};

  add(figure: Figure): Figure {
    if (figure.ratio === undefined && figure.baseline && figure.baseline.value !== 0) figure.ratio = figure.value / figure.baseline.value;
    this.figures.push(figure);
    return figure;
  }

  note(line: string): void {
    this.notes.push(line);
  }
}

export function machine() {
  return {
    cores: os.cpus().length,
    cpu: os.cpus()[0]?.model.trim() ?? "unknown",
    memory_gib: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
}

export function fmt(value: number, unit: string): string {
  // NaN: a figure that could not be measured (its run failed; the notes say why).
  if (Number.isNaN(value)) return "—";
  if (Number.isInteger(value)) return unit ? `${value.toLocaleString("en-US")} ${unit}` : value.toLocaleString("en-US");
  const n =
    Math.abs(value) >= 100 ? Math.round(value).toLocaleString("en-US") : Math.abs(value) >= 10 ? value.toFixed(1) : value.toFixed(2);
  return unit ? `${n} ${unit}` : n;
}

function pad(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

export function renderTable(report: Report, args: { rows: number; smoke: boolean }): string {
  const m = machine();
  const header = ["section", "figure", "value", "baseline (same run)", "ratio", "target", "result"];
  const rows = report.figures.map((f) => [
    f.section,
    f.name + (f.note ? ` (${f.note})` : ""),
    fmt(f.value, f.unit),
    f.baseline ? `${fmt(f.baseline.value, f.baseline.unit)} ${f.baseline.name}` : "",
    f.ratio === undefined ? "" : `${f.ratio.toFixed(2)}×`,
    f.target ?? "",
    f.pass === undefined ? "" : f.pass ? "PASS" : "MISS",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const right = new Set([2, 4]);
  const line = (cells: string[]) => `| ${cells.map((c, i) => pad(c, widths[i], right.has(i))).join(" | ")} |`;
  const out = [
    `Datasync bench: ${m.cores} cores (${m.cpu}), ${m.memory_gib} GiB, Node ${m.node}, ${m.platform}; --rows ${args.rows.toLocaleString("en-US")}${args.smoke ? " --smoke" : ""}`,
    "",
    line(header),
    `|${widths.map((w, i) => (right.has(i) ? `${"-".repeat(w + 1)}:` : `${"-".repeat(w + 2)}`)).join("|")}|`,
    ...rows.map(line),
  ];
  if (report.notes.length > 0) out.push("", ...report.notes.map((n) => `- ${n}`));
  return out.join("\n");
}

export function writeJson(report: Report, args: object): string {
  const dir = path.resolve("bench/results");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, `${JSON.stringify({ machine: machine(), args, figures: report.figures, notes: report.notes, ...report.extra }, null, 2)}\n`);
  return file;
}
