// The answer of a connection check, as serializeConnectionStatus (./connection-status.ts) builds it.
import { z } from "zod";

export const connectionStatusSchema = z
  .strictObject({
    result: z.enum(["success", "failed"]),
    details: z.string().describe("A sentence about the outcome."),
    type: z.literal("connection_status"),
    connection_status: z
      .strictObject({ status: z.enum(["succeeded", "failed"]), message: z.string().describe("The same as details.") })
      .describe("The reference protocol's ConnectionStatus."),
  })
  .describe("HTTP 200 whether or not the connection works.")
  .meta({ id: "ConnectionStatus" });
export type ConnectionStatus = z.infer<typeof connectionStatusSchema>;
