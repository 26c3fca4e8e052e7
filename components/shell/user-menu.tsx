"use client";
import { useState } from "react";
import { useConsole } from "@/lib/api-client/provider";
import { useMe } from "@/lib/api-client/settings";
import { Icon } from "./icons";

export function UserMenu() {
  const { email, signOutNow } = useConsole();
  const me = useMe();
  const [busy, setBusy] = useState(false);
  const name = me.data?.attributes.name || email;
  return (
    <div className="flex items-center gap-3">
      <span className="flex h-8 w-8 shrink-0 items-center justify-center rounded-full bg-slate-700 text-sm font-semibold uppercase text-white" aria-hidden>
        {(name || "?").slice(0, 1)}
      </span>
      <div className="min-w-0 flex-1">
        <p className="truncate text-sm font-medium text-white">{name}</p>
        <p className="truncate text-xs text-slate-400">{email}</p>
      </div>
      <button
        type="button"
        onClick={() => {
          setBusy(true);
          void signOutNow();
        }}
        disabled={busy}
        className="rounded-md p-1.5 text-slate-400 hover:bg-slate-800 hover:text-white focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400"
        aria-label="Sign out"
        title="Sign out"
      >
        <Icon name="logout" className="h-5 w-5" />
      </button>
    </div>
  );
}
