import type { Metadata } from "next";
import { ConnectorsList } from "@/components/connectors/connectors-list";

export const metadata: Metadata = { title: "Sources" };

export default function Page() {
  return <ConnectorsList type="source" />;
}
