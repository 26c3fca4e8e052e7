import type { Metadata } from "next";
import { SyncSettings } from "@/components/syncs/sync-settings";

export const metadata: Metadata = { title: "Sync settings" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <SyncSettings id={id} />;
}
