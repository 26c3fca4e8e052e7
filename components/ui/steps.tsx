import { cn } from "./cn";

/**
 * A wizard's progress: completed, current and upcoming steps. With `onSelect`, every step up to
 * `reached` (the furthest the person has been) is a button that goes back to it.
 */
export function Steps({
  steps,
  current,
  reached = current,
  onSelect,
}: {
  steps: string[];
  current: number;
  reached?: number;
  onSelect?: (index: number) => void;
}) {
  return (
    <ol className="mb-6 flex flex-wrap items-center gap-2 text-sm" aria-label="Progress">
      {steps.map((label, i) => {
        const done = i < current || (i <= reached && i !== current);
        const body = (
          <>
            <span
              className={cn(
                "flex h-6 w-6 items-center justify-center rounded-full text-xs font-semibold",
                done && "bg-indigo-600 text-white",
                i === current && "bg-indigo-100 text-indigo-700 ring-2 ring-indigo-600",
                !done && i !== current && "bg-slate-200 text-slate-500",
              )}
            >
              {done ? "✓" : i + 1}
            </span>
            <span className={cn(i === current ? "font-semibold text-slate-900" : "text-slate-500")}>{label}</span>
          </>
        );
        const clickable = onSelect && i !== current && i <= reached;
        return (
          <li key={label} className="flex items-center gap-2" aria-current={i === current ? "step" : undefined}>
            {clickable ? (
              <button
                type="button"
                onClick={() => onSelect(i)}
                aria-label={`Go to step ${i + 1}: ${label}`}
                className="flex items-center gap-2 rounded-md hover:underline focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
              >
                {body}
              </button>
            ) : (
              body
            )}
            {i < steps.length - 1 && <span className="mx-1 h-px w-6 bg-slate-300" aria-hidden />}
          </li>
        );
      })}
    </ol>
  );
}
