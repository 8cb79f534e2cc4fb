/**
 * The page's side of the console API (host/console/console-application.ts): JSON requests under
 * `/console/api/`, and a polling hook so that every page updates live without a reload.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/** An API error as the broker answers it: HTTP status, Kafka's error name and the message. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly error: string, message: string) {
    super(message);
  }
}

const API = '/console/api/';

/** GET or a JSON write; resolves with the parsed body. @throws ApiError */
export async function api<T>(path: string, method = 'GET', body?: unknown): Promise<T> {
  const init: RequestInit = { method, headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { ...init.headers, 'Content-Type': 'application/json' };
  }
  const response = await fetch(API + path, init);
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    throw new ApiError(response.status, 'INVALID_RESPONSE', text.slice(0, 200));
  }
  if (!response.ok) {
    const error = parsed as { error?: string; message?: string } | null;
    throw new ApiError(response.status, error?.error ?? 'ERROR', error?.message ?? `HTTP ${response.status}`);
  }
  return parsed as T;
}

export interface Polled<T> {
  data: T | null;
  error: ApiError | Error | null;
  /** Fetches now (after a write). */
  refresh: () => void;
}

/** GETs `path` now and every `intervalMs` while mounted (no overlap: the next waits for the last). */
export function usePoll<T>(path: string | null, intervalMs: number): Polled<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [tick, setTick] = useState(0);
  const current = useRef(path);
  current.current = path;
  useEffect(() => {
    if (path === null) return undefined;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async (): Promise<void> => {
      try {
        const value = await api<T>(path);
        if (!stopped && current.current === path) {
          setData(value);
          setError(null);
        }
      } catch (caught) {
        if (!stopped) setError(caught as Error);
      }
      if (!stopped) timer = setTimeout(() => void run(), intervalMs);
    };
    void run();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [path, intervalMs, tick]);
  const refresh = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, refresh };
}
