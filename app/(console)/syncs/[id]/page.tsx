import type { Metadata } from "next";
import { SyncDetail } from "@/components/syncs/sync-detail";

export const metadata: Metadata = { title: "Sync" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <SyncDetail id={id} />;
}
