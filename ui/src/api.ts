// The one way the console talks to the broker: same origin, /api/v1, the
// PAK from the session as a Bearer token. Every failure is an ApiError with
// the broker's code, message and details (ErrorResponse), or status 0 when
// the broker could not be reached.

export interface ErrorDetails {
  pointer?: string;
  line?: number;
  column?: number;
  template?: string;
  violations?: { pointer?: string; schema_pointer?: string; message: string }[];
  [key: string]: unknown;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetails,
  ) {
    super(message);
  }
  // A view whose endpoint the broker does not serve (yet).
  get notServed(): boolean {
    return this.status === 404 && this.code === "not_found";
  }
}

// Anything thrown where the console expects an ApiError.
export function toApiError(cause: unknown): ApiError {
  return cause instanceof ApiError ? cause : new ApiError(0, "client_error", String(cause));
}

// Dispatched on window when the broker refuses the session's PAK mid-session
// (revoked, or its generator deleted); the shell signs out.
export const PAK_REFUSED_EVENT = "sindri:pak-refused";

export class PakRefusedEvent extends Event {
  constructor(readonly error: ApiError) {
    super(PAK_REFUSED_EVENT);
  }
}

const PAK_KEY = "sindri.pak";

export function storedPak(): string | null {
  return sessionStorage.getItem(PAK_KEY);
}

export function storePak(pak: string | null): void {
  if (pak === null) sessionStorage.removeItem(PAK_KEY);
  else sessionStorage.setItem(PAK_KEY, pak);
}

export async function request<T>(method: string, path: string, body?: unknown, pak = storedPak()): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (pak) headers.Authorization = `Bearer ${pak}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(`/api/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (cause) {
    throw new ApiError(0, "unreachable", `the broker cannot be reached: ${String(cause)}`);
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    if (response.ok) throw new ApiError(response.status, "not_json", `${method} ${path} answered with text that is not JSON`);
  }
  if (!response.ok) {
    const error = (parsed ?? {}) as { code?: string; message?: string; error?: string; details?: ErrorDetails };
    const refused = new ApiError(
      response.status,
      error.code ?? `http_${response.status}`,
      error.message ?? error.error ?? (text || response.statusText),
      error.details,
    );
    // Only the session's own PAK: a PAK being tried at sign-in is not it.
    if (response.status === 401 && pak !== null && pak === storedPak()) window.dispatchEvent(new PakRefusedEvent(refused));
    throw refused;
  }
  return parsed as T;
}

export const get = <T>(path: string) => request<T>("GET", path);
export const post = <T>(path: string, body?: unknown) => request<T>("POST", path, body);
export const put = <T>(path: string, body?: unknown) => request<T>("PUT", path, body);

// POST /auth/pak: whose PAK this is.
export interface Identity {
  admin: boolean;
  generator: string | null;
  agent: string | null;
}

export function whoAmI(pak: string): Promise<Identity> {
  return request<Identity>("POST", "/auth/pak", undefined, pak);
}
