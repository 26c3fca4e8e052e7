import { z } from "zod";

export const loginSchema = z.object({
  email: z.string().trim().toLowerCase().email("must be an email address").max(320),
  password: z.string().min(1, "is required").max(1024),
});
export type LoginInput = z.infer<typeof loginSchema>;
