import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { ConsoleShell } from "@/components/shell/console-shell";
import { WORKSPACE_COOKIE } from "@/lib/api-client/client";
import { currentSession } from "@/lib/auth/next-auth";

export const dynamic = "force-dynamic";

/** Every console page: a signed-in session (else /login) and the shared shell. */
export default async function ConsoleLayout({ children }: { children: React.ReactNode }) {
  const session = await currentSession();
  if (!session) redirect("/login?expired=1");
  const workspaceId = Number((await cookies()).get(WORKSPACE_COOKIE)?.value) || null;
  return (
    <ConsoleShell email={session.user.email} workspaceId={workspaceId}>
      {children}
    </ConsoleShell>
  );
}
