import { cn } from "./cn";

/** A wizard's progress: completed, current and upcoming steps. */
export function Steps({ steps, current }: { steps: string[]; current: number }) {
  return (
    <ol className="mb-6 flex flex-wrap items-center gap-2 text-sm" aria-label="Progress">
      {steps.map((label, i) => (
        <li key={label} className="flex items-center gap-2" aria-current={i === current ? "step" : undefined}>
          <span
            className={cn(
              "flex h-6 w-6 items-center justify-center rounded-full text-xs font-semibold",
              i < current && "bg-indigo-600 text-white",
              i === current && "bg-indigo-100 text-indigo-700 ring-2 ring-indigo-600",
              i > current && "bg-slate-200 text-slate-500",
            )}
          >
            {i < current ? "✓" : i + 1}
          </span>
          <span className={cn(i === current ? "font-semibold text-slate-900" : "text-slate-500")}>{label}</span>
          {i < steps.length - 1 && <span className="mx-1 h-px w-6 bg-slate-300" aria-hidden />}
        </li>
      ))}
    </ol>
  );
}
