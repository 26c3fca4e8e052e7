import type { Metadata } from "next";
import { ConnectorDetail } from "@/components/connectors/connector-detail";

export const metadata: Metadata = { title: "Source" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ConnectorDetail type="source" id={id} />;
}
