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

export function requestLanguage(req: FastifyRequest): Language {
  return pickLanguage(req.headers['accept-language'], cookieValue(req.headers.cookie, 'language'));
}
