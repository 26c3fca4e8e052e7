import type { Metadata } from "next";
import { RunDetail } from "@/components/syncs/run-detail";

export const metadata: Metadata = { title: "Run" };

export default async function Page({ params }: { params: Promise<{ id: string; runId: string }> }) {
  const { id, runId } = await params;
  return <RunDetail syncId={id} runId={runId} />;
}
