import { redirect } from "next/navigation";

// The former "Edit" (the whole wizard again) is now the settings view, edited section by section.
export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  redirect(`/syncs/${id}/settings`);
}
