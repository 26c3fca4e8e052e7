import { cn } from "@/components/ui/cn";

const COLORS = ["bg-indigo-600", "bg-sky-600", "bg-emerald-600", "bg-amber-600", "bg-rose-600", "bg-violet-600", "bg-teal-600"];

/** A lettered tile per connector kind (the same name always gets the same colour). */
export function ConnectorIcon({ name, className }: { name: string; className?: string }) {
  const hash = [...name.toLowerCase()].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
  return (
    <span
      aria-hidden
      className={cn(
        "inline-flex shrink-0 items-center justify-center rounded-md font-semibold text-white",
        COLORS[hash % COLORS.length],
        className ?? "h-8 w-8 text-sm",
      )}
    >
      {name.slice(0, 2).replace(/^./, (c) => c.toUpperCase())}
    </span>
  );
}
