import { Spinner } from "@/components/ui/states";
import type { CheckResult } from "@/lib/api-client/connectors";

export function CheckResultPanel({ pending, result, error }: { pending: boolean; result?: CheckResult; error?: string | null }) {
  if (pending) {
    return (
      <div role="status" className="flex items-center gap-3 rounded-lg border border-slate-200 bg-slate-50 px-4 py-3 text-sm text-slate-700">
        <Spinner className="h-4 w-4 text-indigo-600" /> Testing the connection…
      </div>
    );
  }
  if (error) {
    return (
      <div role="alert" className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
        <p className="font-semibold">The test could not run</p>
        <p className="mt-1">{error}</p>
      </div>
    );
  }
  if (!result) return null;
  const ok = result.result === "success";
  return (
    <div
      role={ok ? "status" : "alert"}
      data-testid="check-result"
      className={ok ? "rounded-lg border border-emerald-200 bg-emerald-50 px-4 py-3 text-sm text-emerald-900" : "rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800"}
    >
      <p className="font-semibold">{ok ? "Connection succeeded" : "Connection failed"}</p>
      {result.details && <p className="mt-1 break-words">{result.details}</p>}
    </div>
  );
}
