import type { BodyOf, CallDef, QueryOf } from '@ksp/contracts';
import { i18n } from '../i18n/i18n';
import { ApiError } from './api-error';
import { isEnvelope, refusal, requestHeaders } from './client';
import { clientEnvironment } from './client-environment';

/** A file a download call answered: its bytes and the name the server gave it. */
export interface DownloadedFile {
  blob: Blob;
  /** From `Content-Disposition`; null when the answer names none. */
  filename: string | null;
}

/** The file name of a `Content-Disposition` header (`filename*=UTF-8''…` preferred). */
export function dispositionFilename(header: string | null): string | null {
  if (!header) return null;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header)?.[1];
  if (extended) {
    try {
      return decodeURIComponent(extended.trim());
    } catch {
      // Not percent-encoding after all: the plain name below.
    }
  }
  const plain = /filename\s*=\s*(?:"([^"]*)"|([^;\s]+))/.exec(header);
  return plain?.[1] ?? plain?.[2] ?? null;
}

function searchOf(query: object): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * Calls a download call (`download` in the contract), whose answer is the file itself: fetched
 * with the session's headers as every call (the token never goes in the URL), read whole. A
 * refusal is the JSON envelope as for every call: it is shown like any other and rejects.
 */
export async function download<C extends CallDef>(
  def: C,
  query: QueryOf<C>,
  /** The JSON body of a download call that takes one (a password never goes in the URL). */
  body?: BodyOf<C>,
): Promise<DownloadedFile> {
  let response: Response;
  try {
    const headers = await requestHeaders(def.path);
    response = await fetch(`${def.path}${searchOf(query ?? {})}`, {
      method: def.method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    const text = i18n.t('common:feedback.networkError');
    clientEnvironment().showError(text);
    throw new ApiError(0, text);
  }
  const blob = await response.blob();
  const type = response.headers.get('content-type') ?? '';
  // A JSON export is an array: an object is the envelope of a refusal.
  if (type.startsWith('application/json') && (await blob.slice(0, 64).text()).trimStart().startsWith('{')) {
    let body: unknown = null;
    try {
      body = JSON.parse(await blob.text());
    } catch {
      // Not an envelope: the generic failure below.
    }
    if (isEnvelope(body)) throw refusal(body, response.status);
  }
  if (!response.ok) {
    clientEnvironment().showError(i18n.t('common:feedback.error'));
    throw new ApiError(0, response.statusText, response.status);
  }
  return { blob, filename: dispositionFilename(response.headers.get('content-disposition')) };
}
