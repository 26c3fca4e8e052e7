"use client";
import Link from "next/link";
import { PageHeader } from "@/components/ui/card";
import { ErrorState, LoadingState } from "@/components/ui/states";
import { useSync } from "@/lib/api-client/syncs";
import { SyncWizard } from "./sync-wizard";
import { syncName } from "./syncs-list";

export function SyncEdit({ id }: { id: string }) {
  const sync = useSync(id);
  if (sync.isLoading) return <LoadingState />;
  if (sync.error || !sync.data) return <ErrorState error={sync.error ?? "Not found"} onRetry={() => void sync.refetch()} />;
  return (
    <>
      <PageHeader breadcrumb={<Link href={`/syncs/${id}`} className="hover:underline">{syncName(sync.data)}</Link>} title="Edit sync" />
      <SyncWizard sync={sync.data} />
    </>
  );
}
