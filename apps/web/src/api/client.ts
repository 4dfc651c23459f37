import axios, { AxiosError, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import {
  api,
  Code,
  PRODUCT_VERSION,
  TOKEN_HEADER,
  VERSION_HEADER,
  type BodyOf,
  type CallDef,
  type DataOf,
  type QueryOf,
} from '@ksp/contracts';
import { currentLanguage, i18n } from '../i18n/i18n';
import { acceptLanguage } from '../i18n/language';
import { ApiError } from './api-error';
import { localizeServerMessage } from './server-message';
import { clientEnvironment, resetClientEnvironment } from './client-environment';
import { isEmbedded, postToParent } from './parent-window';
import { clearToken, getSignedIn, getToken, getTokenTime, setToken } from './session';

export const REQUEST_TIMEOUT_MS = 20000;

declare module 'axios' {
  interface AxiosRequestConfig {
    /** The caller shows its own message: no error toast from the client. */
    silent?: boolean;
    /** The token refresh call itself must not trigger a refresh. */
    skipRefresh?: boolean;
  }
}

/** Whether a call failed because the session expired (the client shows its own dialog). */
export function isSessionExpired(error: unknown): boolean {
  return error instanceof ApiError && error.code === Code.SESSION_EXPIRED;
}

export interface Envelope {
  code: number;
  msg: string;
  data: unknown;
}

export function isEnvelope(value: unknown): value is Envelope {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Record<string, unknown>).code === 'number' &&
    'data' in value
  );
}

function serverMessage(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    const msg = (value as Record<string, unknown>).msg;
    if (typeof msg === 'string') return msg;
  }
  return '';
}

/** The one HTTP client of the console. */
export const http = axios.create({ withCredentials: true, timeout: REQUEST_TIMEOUT_MS });

let refreshing: Promise<void> | null = null;

/** Refreshes the token once `refresh_seconds` have passed since the last login or refresh. */
async function refreshTokenIfDue(): Promise<void> {
  if (!getToken()) return;
  const seconds = getSignedIn()?.userinfo.session.refresh_seconds;
  if (!seconds || Date.now() - getTokenTime() <= seconds * 1000) return;
  refreshing ??= call(api.token.refresh, {}, { silent: true, skipRefresh: true })
    .then((token) => setToken(token))
    .catch(() => undefined)
    .finally(() => {
      refreshing = null;
    });
  await refreshing;
}

/**
 * The headers of every request to `url` (the token refreshed first when due): the session
 * token (never on open_api paths), the version and the language.
 */
export async function requestHeaders(url: string, refresh = true): Promise<Record<string, string>> {
  if (refresh) await refreshTokenIfDue();
  const token = getToken();
  const headers: Record<string, string> = {
    [VERSION_HEADER]: PRODUCT_VERSION,
    'Accept-Language': acceptLanguage(currentLanguage()),
  };
  if (token && !url.includes('open_api')) headers[TOKEN_HEADER] = token;
  if (isEmbedded()) postToParent({ type: 'request', url });
  return headers;
}

http.interceptors.request.use(async (config: InternalAxiosRequestConfig) => {
  const url = config.url ?? '';
  config.headers.delete(TOKEN_HEADER);
  for (const [name, value] of Object.entries(await requestHeaders(url, !config.skipRefresh))) {
    config.headers.set(name, value);
  }
  return config;
});

let expiredAlertOpen = false;

/** Back to the default environment and no call state (tests). */
export function resetClient(): void {
  resetClientEnvironment();
  expiredAlertOpen = false;
  refreshing = null;
}

function sessionExpired(): void {
  if (isEmbedded()) {
    postToParent({ type: 'tokenExpired' });
    return;
  }
  if (expiredAlertOpen) return;
  expiredAlertOpen = true;
  clientEnvironment().showSessionExpired(
    i18n.t('common:session.expiredTitle'),
    i18n.t('common:session.expired'),
    i18n.t('common:session.loginAgain'),
    () => {
      expiredAlertOpen = false;
      clearToken();
      clientEnvironment().reload();
    },
  );
}

function onResponse(response: AxiosResponse): AxiosResponse | Promise<never> {
  const body: unknown = response.data;
  if (!isEnvelope(body)) {
    if (!response.config.silent) clientEnvironment().showError(i18n.t('common:feedback.error'));
    return Promise.reject(new ApiError(-1, 'Not an envelope', response.status));
  }
  if (body.code === Code.OK) return response;
  return Promise.reject(refusal(body, response.status, response.config.silent));
}

/**
 * The error of an answer that is not OK, after the client's usual handling: the message
 * shown (unless `silent`), the session-expired alert, the redirects of codes 5030 and 4003.
 */
export function refusal(answer: Envelope, status: number, silent = false): ApiError {
  const body =
    typeof answer.msg === 'string' ? { ...answer, msg: localizeServerMessage(answer.msg) } : answer;
  const error = new ApiError(body.code, body.msg, status);
  switch (body.code) {
    case Code.SESSION_EXPIRED:
      sessionExpired();
      break;
    case Code.UKEY_REQUIRED:
      // Passed to the caller, which runs the Ukey login: no message here.
      break;
    default:
      if (!silent) clientEnvironment().showError(body.msg || i18n.t('common:feedback.error'));
      if (body.code === Code.NOT_INITIALIZED) clientEnvironment().onNotReady();
      if (body.code === Code.PASSWORD_CHANGE_REQUIRED) clientEnvironment().onPasswordChangeRequired();
  }
  return error;
}

function onFailure(failure: unknown): Promise<never> {
  if (failure instanceof ApiError) return Promise.reject(failure);
  const response = failure instanceof AxiosError ? failure.response : undefined;
  if (response?.status === 401) {
    clearToken();
    clientEnvironment().reload();
    return Promise.reject(new ApiError(0, serverMessage(response.data), 401));
  }
  const config = failure instanceof AxiosError ? failure.config : undefined;
  const text = serverMessage(response?.data) || i18n.t('common:feedback.networkError');
  if (!config?.silent) clientEnvironment().showError(text);
  return Promise.reject(new ApiError(0, text, response?.status));
}

http.interceptors.response.use(onResponse, onFailure);

export interface CallOptions {
  silent?: boolean;
  skipRefresh?: boolean;
  signal?: AbortSignal;
}

export type CallInput<C> = { query?: QueryOf<C>; body?: BodyOf<C> };

function toData<C extends CallDef>(def: C, raw: unknown): DataOf<C> {
  const parsed = def.data.safeParse(raw);
  if (parsed.success) return parsed.data as DataOf<C>;
  // The server validates its answers with the same schema; a mismatch is a bug to see, not to hide.
  console.error(`Answer of ${def.method} ${def.path} does not match the contract`, parsed.error.issues);
  return raw as DataOf<C>;
}

/** Calls a contract call: method, path, query and body all come from its definition. */
export async function call<C extends CallDef>(
  def: C,
  input: CallInput<C> = {},
  options: CallOptions = {},
): Promise<DataOf<C>> {
  const response = await http.request<Envelope>({
    method: def.method,
    url: def.path,
    params: input.query,
    data: input.body,
    silent: options.silent,
    skipRefresh: options.skipRefresh,
    signal: options.signal,
  });
  return toData(def, response.data.data);
}

/** Multipart upload for calls marked `multipart` (the file goes in form field `file`). */
export async function upload<C extends CallDef>(
  def: C,
  file: Blob,
  options: CallOptions & { field?: string; filename?: string } = {},
): Promise<DataOf<C>> {
  const form = new FormData();
  if (options.filename) form.append(options.field ?? 'file', file, options.filename);
  else form.append(options.field ?? 'file', file);
  const response = await http.request<Envelope>({
    method: def.method,
    url: def.path,
    data: form,
    silent: options.silent,
    signal: options.signal,
  });
  return toData(def, response.data.data);
}
