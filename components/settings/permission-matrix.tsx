"use client";
import { ACTIONS, RESOURCES } from "@/lib/auth/permissions";
import type { Policies } from "@/lib/api-client/types";

const label = (r: string) => r.replace(/_/g, " ");

/** Resources × create/read/update/delete; editable when onChange is given. */
export function PermissionMatrix({ policies, onChange, caption }: { policies: Policies; onChange?: (p: Policies) => void; caption: string }) {
  return (
    <div className="overflow-x-auto">
      <table className="min-w-full text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr className="text-xs uppercase tracking-wide text-slate-500">
            <th scope="col" className="py-1.5 pr-4 text-left font-semibold">Resource</th>
            {ACTIONS.map((a) => (
              <th key={a} scope="col" className="px-3 py-1.5 text-center font-semibold">{a}</th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {RESOURCES.map((r) => (
            <tr key={r}>
              <th scope="row" className="py-1.5 pr-4 text-left font-medium capitalize text-slate-700">{label(r)}</th>
              {ACTIONS.map((a) => {
                const on = policies.permissions?.[r]?.[a] === true;
                return (
                  <td key={a} className="px-3 py-1.5 text-center">
                    {onChange ? (
                      <input
                        type="checkbox"
                        aria-label={`${a} ${label(r)}`}
                        checked={on}
                        onChange={(e) => {
                          const none = { create: false, read: false, update: false, delete: false };
                          const crud = { ...none, ...(policies.permissions?.[r] ?? {}), [a]: e.target.checked };
                          onChange({ permissions: { ...policies.permissions, [r]: crud } });
                        }}
                        className="h-4 w-4 rounded border-slate-300 text-indigo-600 focus:ring-2 focus:ring-indigo-500"
                      />
                    ) : (
                      <span aria-label={on ? "allowed" : "not allowed"} className={on ? "text-emerald-600" : "text-slate-300"}>
                        {on ? "●" : "○"}
                      </span>
                    )}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
