"use client";
import { useCallback, useMemo, useState } from "react";
import { ToastContext, type ToastApi } from "@/lib/toast";
import { cn } from "./cn";

export { useToast } from "@/lib/toast";

type Tone = "success" | "error" | "info";
interface Toast {
  id: number;
  tone: Tone;
  message: string;
}

let next = 1;

export function Toaster({ children }: { children: React.ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((t) => t.id !== id)), []);
  const push = useCallback(
    (tone: Tone, message: string) => {
      const id = next++;
      setToasts((all) => [...all.slice(-3), { id, tone, message }]);
      setTimeout(() => dismiss(id), tone === "error" ? 9000 : 4500);
    },
    [dismiss],
  );
  const api = useMemo<ToastApi>(
    () => ({ success: (m) => push("success", m), error: (m) => push("error", m), info: (m) => push("info", m) }),
    [push],
  );
  return (
    <ToastContext.Provider value={api}>
      {children}
      {/* Top centre of the page column (right of the w-60 sidebar): at the bottom right, toasts covered
          the tables' Previous/Next buttons; up here they sit between a page's title and its actions. */}
      <div aria-live="polite" className="pointer-events-none fixed left-60 right-0 top-3 z-50 flex flex-col items-center gap-2 px-4">
        {toasts.map((t) => (
          <div
            key={t.id}
            role={t.tone === "error" ? "alert" : "status"}
            data-testid={`toast-${t.tone}`}
            className={cn(
              "pointer-events-auto flex w-96 max-w-full items-start gap-3 rounded-lg border px-4 py-3 text-sm shadow-lg",
              t.tone === "success" && "border-emerald-200 bg-emerald-50 text-emerald-900",
              t.tone === "error" && "border-red-200 bg-red-50 text-red-900",
              t.tone === "info" && "border-slate-200 bg-white text-slate-900",
            )}
          >
            <p className="flex-1">{t.message}</p>
            <button
              type="button"
              onClick={() => dismiss(t.id)}
              className="rounded text-current opacity-60 hover:opacity-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
              aria-label="Dismiss"
            >
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
