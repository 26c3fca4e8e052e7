"use client";
// Holds the console's API client (selected workspace; the session itself is the httpOnly cookie) and
// the React Query cache. Switching workspace clears the cache so no page ever shows one workspace's
// data under another's name.
import { QueryCache, QueryClient, QueryClientProvider, MutationCache } from "@tanstack/react-query";
import { signOut } from "next-auth/react";
import { useRouter } from "next/navigation";
import { createContext, useCallback, useContext, useMemo, useState } from "react";
import { ApiClient, ApiError, WORKSPACE_COOKIE } from "./client";

interface ConsoleSession {
  api: ApiClient;
  email: string;
  workspaceId: number | null;
  setWorkspaceId: (id: number | null) => void;
  /** `sessionEnded`: the API already ended the session (e.g. a password change), so no logout call. */
  signOutNow: (options?: { sessionEnded?: boolean }) => Promise<void>;
}

// Set once the console is on its way to the sign-in page, so a burst of 401s signs out once.
const leaving = { current: false };

const Context = createContext<ConsoleSession | null>(null);

export function useConsole(): ConsoleSession {
  const value = useContext(Context);
  if (!value) throw new Error("useConsole() outside <ApiProvider>");
  return value;
}

export function useApi(): ApiClient {
  return useConsole().api;
}

function retry(count: number, err: unknown): boolean {
  if (err instanceof ApiError && err.httpStatus >= 400 && err.httpStatus < 500) return false;
  return count < 2;
}

/** Waits (a few seconds at most) until no query or mutation is in flight. */
async function settled(queryClient: QueryClient): Promise<void> {
  for (let i = 0; i < 50 && queryClient.isFetching() + queryClient.isMutating() > 0; i++) await new Promise((r) => setTimeout(r, 100));
}

export function ApiProvider(props: {
  email: string;
  initialWorkspaceId: number | null;
  children: React.ReactNode;
}) {
  const [workspaceId, setWorkspace] = useState<number | null>(props.initialWorkspaceId);
  const router = useRouter();
  // Mounted once per signed-in visit: the console layout is left (unmounted) for /login. Reset while
  // rendering, not in an effect: the pages' queries start before this component's effects run, and
  // must not be answered "signed out" after signing in again.
  useState(() => {
    leaving.current = false;
  });

  const expire = useCallback(() => {
    if (leaving.current) return;
    leaving.current = true;
    void signOut({ redirect: false }).finally(() => {
      router.replace(`/login?expired=1&callbackUrl=${encodeURIComponent(window.location.pathname)}`);
      router.refresh();
    });
  }, [router]);

  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: { queries: { retry, staleTime: 5_000, refetchOnWindowFocus: false } },
        queryCache: new QueryCache(),
        mutationCache: new MutationCache(),
      }),
  );

  const api = useMemo(
    () => new ApiClient({ workspaceId, onUnauthorized: expire, signedOut: () => leaving.current }),
    [workspaceId, expire],
  );

  const setWorkspaceId = useCallback(
    (id: number | null) => {
      document.cookie = id
        ? `${WORKSPACE_COOKIE}=${id}; path=/; max-age=31536000; samesite=lax`
        : `${WORKSPACE_COOKIE}=; path=/; max-age=0`;
      queryClient.clear();
      setWorkspace(id);
    },
    [queryClient],
  );

  const signOutNow = useCallback(async (options?: { sessionEnded?: boolean }) => {
    // No new request goes out from here on (api answers them 401 itself), and the logout waits for
    // those in flight: a page's poll answered after the logout would be a 401 in the browser's log.
    leaving.current = true;
    await settled(queryClient);
    if (!options?.sessionEnded) {
      const direct = new ApiClient({ workspaceId }); // the one request not held back by `leaving`
      await direct.ok(direct.DELETE("/api/v1/logout")).catch(() => undefined);
    }
    document.cookie = `${WORKSPACE_COOKIE}=; path=/; max-age=0`;
    await signOut({ redirect: false });
    queryClient.clear();
    router.replace("/login");
    router.refresh();
  }, [workspaceId, queryClient, router]);

  const value = useMemo(
    () => ({ api, email: props.email, workspaceId, setWorkspaceId, signOutNow }),
    [api, props.email, workspaceId, setWorkspaceId, signOutNow],
  );

  return (
    <Context.Provider value={value}>
      <QueryClientProvider client={queryClient}>{props.children}</QueryClientProvider>
    </Context.Provider>
  );
}
