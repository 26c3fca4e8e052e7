"use client";
import { useId } from "react";
import { useConsole } from "@/lib/api-client/provider";
import { useMe } from "@/lib/api-client/settings";

/** A native select: keyboard and screen readers work without extra code. */
export function WorkspaceSwitcher() {
  const { setWorkspaceId } = useConsole();
  const me = useMe();
  const id = useId();
  const workspaces = me.data?.attributes.workspaces ?? [];
  const current = me.data?.attributes.workspace_id;
  return (
    <div>
      <label htmlFor={id} className="mb-1 block text-xs font-medium uppercase tracking-wider text-slate-500">
        Workspace
      </label>
      <select
        id={id}
        value={current ?? ""}
        disabled={!me.data}
        onChange={(e) => setWorkspaceId(Number(e.target.value))}
        className="block w-full rounded-md border border-slate-700 bg-slate-800 px-2 py-1.5 text-sm text-white focus:outline-none focus:ring-2 focus:ring-indigo-400"
      >
        {!me.data && <option value="">Loading…</option>}
        {workspaces.map((w) => (
          <option key={w.id} value={w.id}>
            {w.name}
          </option>
        ))}
      </select>
      {me.data && <p className="mt-1 text-xs text-slate-400">Your role: {me.data.attributes.role.role_name}</p>}
    </div>
  );
}
