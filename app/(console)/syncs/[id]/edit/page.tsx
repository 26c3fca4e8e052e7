import type { Metadata } from "next";
import { SyncEdit } from "@/components/syncs/sync-edit";

export const metadata: Metadata = { title: "Edit sync" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <SyncEdit id={id} />;
}
