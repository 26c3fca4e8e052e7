import type { Metadata } from "next";
import { SyncsList } from "@/components/syncs/syncs-list";

export const metadata: Metadata = { title: "Syncs" };

// The filter comes from the address (?needs_attention=true, the dashboard's link) as a prop: read
// with useSearchParams, the list would need a Suspense boundary that hydrates after the layout's
// queries answered, and render differently from the server's HTML.
export default async function Page({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { needs_attention: needsAttention } = await searchParams;
  return <SyncsList needsAttention={needsAttention === "true"} />;
}
