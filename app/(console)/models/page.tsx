import type { Metadata } from "next";
import { ModelsList } from "@/components/models/models-list";

export const metadata: Metadata = { title: "Models" };

export default function Page() {
  return <ModelsList />;
}
