"use client";
// The toast port: components/ui/toast.tsx renders the toasts, while lib/api-client reports mutation
// outcomes through useToast() without depending on the component layer.
import { createContext, useContext } from "react";

export interface ToastApi {
  success: (message: string) => void;
  error: (message: string) => void;
  info: (message: string) => void;
}

export const ToastContext = createContext<ToastApi | null>(null);

export function useToast(): ToastApi {
  const value = useContext(ToastContext);
  if (!value) throw new Error("useToast() outside <Toaster>");
  return value;
}
