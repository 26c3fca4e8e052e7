// A throwaway operation declaration for tests of the route wrapper: only what the wrapper reads
// (permission and schemas) varies; the answer may be anything.
import { z, type ZodType } from "zod";
import { operation, type Operation } from "@/lib/contract/operation";

type Spec<P, Q, B> = Pick<Operation<P, Q, B>, "permission" | "inPathWorkspace"> & {
  params?: ZodType<P>;
  query?: ZodType<Q>;
  body?: ZodType<B>;
};

export function testOperation<P = Record<string, never>, Q = Record<string, never>, B = undefined>(spec: Spec<P, Q, B>) {
  return operation({
    operationId: "testOperation",
    method: "post",
    path: "/api/v1/test",
    tag: "Service",
    summary: "A route under test",
    status: 200,
    response: z.unknown(),
    ...spec,
  });
}
