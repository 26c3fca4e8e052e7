"use client";
// Syncs named by id, as links to their pages: the names come from the workspace's first 100 syncs.
import Link from "next/link";
import { useMemo } from "react";
import { useSyncs } from "@/lib/api-client/syncs";
import type { Sync } from "@/lib/api-client/types";
import { syncName } from "./syncs-list";

/** The workspace's syncs (the first 100, the API's largest page) and their names by id. */
export function useSyncNames() {
  const syncs = useSyncs({ page: 1, perPage: 100 });
  return useMemo(() => {
    const list: Sync[] = syncs.data?.data ?? [];
    const names = new Map(list.map((s) => [Number(s.id), syncName(s)]));
    return { list, isLoading: syncs.isLoading, nameOf: (id: number) => names.get(id) ?? `Sync ${id}` };
  }, [syncs.data, syncs.isLoading]);
}

export function SyncLinks({ ids, nameOf, empty }: { ids: number[]; nameOf: (id: number) => string; empty: React.ReactNode }) {
  if (ids.length === 0) return <p className="text-sm text-slate-500">{empty}</p>;
  return (
    <ul className="flex flex-wrap gap-2">
      {ids.map((id) => (
        <li key={id}>
          <Link href={`/syncs/${id}`} className="inline-flex rounded-md border border-slate-200 px-2 py-1 text-sm text-indigo-700 hover:bg-slate-50 hover:underline">
            {nameOf(id)}
          </Link>
        </li>
      ))}
    </ul>
  );
}
