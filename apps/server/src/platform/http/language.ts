import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { pickLanguage, type Language } from '@ksp/contracts';

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

/** The caller's language from its headers (Accept-Language, then the console's `language` cookie). */
export function headersLanguage(headers: IncomingHttpHeaders): Language {
  return pickLanguage(headers['accept-language'], cookieValue(headers.cookie, 'language'));
}

export function requestLanguage(req: FastifyRequest): Language {
  return headersLanguage(req.headers);
}
