import type { TokenKind } from '@ksp/contracts';
import type { Actor, RequestMeta } from './http/route.js';

/**
 * The server acting on its own in one domain (a scheduled round, a default made on demand, an
 * agent's call carried out for its client): no user and no session, so its records name
 * `username` with the source `scheduler`; `permissions` are what the service it calls may check
 * (none by default: such calls go to service functions that do not ask).
 */
export function systemActor(o: {
  username: string;
  domainId: string;
  domainName: string;
  permissions?: Iterable<string>;
  kind?: TokenKind;
  systemScope?: boolean;
}): Actor {
  return {
    userId: '',
    username: o.username,
    domainId: o.domainId,
    domainName: o.domainName,
    sessionId: '',
    permissions: new Set(o.permissions ?? []),
    mustChangePassword: false,
    directory: null,
    kind: o.kind ?? 'session',
    systemScope: o.systemScope ?? false,
  };
}

/** The request facts of the server's own work: no address, English, `userAgent` naming the job. */
export const systemMeta = (userAgent = ''): RequestMeta => ({ ip: '', lang: 'en', userAgent });
