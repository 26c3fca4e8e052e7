import type { Metadata } from "next";
import Link from "next/link";
import { ModelEditor } from "@/components/models/model-editor";
import { PageHeader } from "@/components/ui/card";

export const metadata: Metadata = { title: "New model" };

export default function Page() {
  return (
    <>
      <PageHeader breadcrumb={<Link href="/models" className="hover:underline">Models</Link>} title="New model" description="Choose a source, write a query, preview it, pick the primary key and name it." />
      <ModelEditor />
    </>
  );
}
