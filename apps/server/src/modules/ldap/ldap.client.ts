import { connect as tcpConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Client } from 'ldapts';
import type { DirectorySettings } from '@ksp/contracts';

/** The directory settings one conversation needs (secrets already unsealed). */
export type { DirectorySettings };

export type StepName = 'connect' | 'bind' | 'find-user' | 'bind-user' | 'groups';
export interface StepResult {
  step: StepName;
  ok: boolean;
  ms: number;
  detail: string;
}

const TIMEOUT_MS = 5000;

/** RFC 4515 escaping of a value placed in a search filter. */
export function escapeFilterValue(value: string): string {
  return value.replace(/[\\*()\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function wrapFilter(filter: string): string {
  const f = filter.trim();
  if (!f) return '(objectClass=*)';
  return f.startsWith('(') ? f : `(${f})`;
}

function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const shown = typeof code === 'string' || typeof code === 'number' ? ` (${code})` : '';
    return `${err.name}${shown}: ${err.message}`.slice(0, 300);
  }
  return String(err).slice(0, 300);
}

function tlsOptions(s: DirectorySettings) {
  return {
    rejectUnauthorized: s.verify_certificate,
    ...(s.ca_certificate.trim() ? { ca: [s.ca_certificate] } : {}),
  };
}

/** Opens (and closes) a plain TCP or TLS connection, to tell network and TLS faults from LDAP ones. */
function probe(s: DirectorySettings): Promise<void> {
  const url = new URL(s.url);
  const secure = url.protocol === 'ldaps:';
  const port = Number(url.port || (secure ? 636 : 389));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const socket = secure
      ? tlsConnect(
          { host, port, servername: /^[\d.]+$|:/.test(host) ? undefined : host, ...tlsOptions(s) },
          () => {
            socket.end();
            resolve();
          },
        )
      : tcpConnect({ host, port }, () => {
          socket.end();
          resolve();
        });
    socket.setTimeout(TIMEOUT_MS, () =>
      socket.destroy(new Error(`no answer from ${host}:${port} within ${TIMEOUT_MS} ms`)),
    );
    socket.once('error', reject);
  });
}

function client(s: DirectorySettings): Client {
  // ldapts speaks TLS whenever tlsOptions is present, so give it only for ldaps://.
  const secure = s.url.toLowerCase().startsWith('ldaps:');
  return new Client({
    url: s.url,
    timeout: TIMEOUT_MS,
    connectTimeout: TIMEOUT_MS,
    ...(secure ? { tlsOptions: tlsOptions(s) } : {}),
  });
}

/**
 * connect → bind (service account) → find user → bind as user → groups. Stops at the
 * first failing step; `stopAfter` ends early for callers that only need some steps.
 */
export async function runDirectorySteps(
  s: DirectorySettings,
  username: string,
  password: string,
): Promise<{ steps: StepResult[]; userDn: string | null; groups: string[] }> {
  const steps: StepResult[] = [];
  const timed = async <T>(
    step: StepName,
    work: () => Promise<T>,
    detail: (v: T) => string,
  ): Promise<T | undefined> => {
    const started = Date.now();
    try {
      const value = await work();
      steps.push({ step, ok: true, ms: Date.now() - started, detail: detail(value) });
      return value;
    } catch (err) {
      steps.push({ step, ok: false, ms: Date.now() - started, detail: describeError(err) });
      return undefined;
    }
  };
  const fail = () => ({ steps, userDn: null, groups: [] as string[] });

  if (
    (await timed(
      'connect',
      () => probe(s),
      () => `reached ${new URL(s.url).host}`,
    )) === undefined &&
    steps.at(-1)?.ok === false
  )
    return fail();
  const service = client(s);
  try {
    const bound = await timed(
      'bind',
      async () => {
        if (s.bind_dn) await service.bind(s.bind_dn, s.bind_password);
        return s.bind_dn || 'anonymous';
      },
      (who) => `bound as ${who}`,
    );
    if (bound === undefined) return fail();
    if (!password) {
      steps.push({ step: 'find-user', ok: false, ms: 0, detail: 'an empty password is never accepted' });
      return fail();
    }
    const filter = `(&${wrapFilter(s.user_filter)}(${s.username_attribute}=${escapeFilterValue(username)}))`;
    const userDn = await timed(
      'find-user',
      async () => {
        const attributes =
          s.user_dn_attribute && s.user_dn_attribute !== 'dn' ? [s.user_dn_attribute] : ['dn'];
        const { searchEntries } = await service.search(s.user_base_dn, {
          scope: 'sub',
          filter,
          attributes,
          sizeLimit: 2,
        });
        if (searchEntries.length === 0) throw new Error(`no entry matches ${filter} under ${s.user_base_dn}`);
        if (searchEntries.length > 1) throw new Error(`more than one entry matches ${filter}`);
        const entry = searchEntries[0]!;
        const value =
          s.user_dn_attribute && s.user_dn_attribute !== 'dn' ? entry[s.user_dn_attribute] : entry.dn;
        return String(Array.isArray(value) ? value[0] : value);
      },
      (dn) => dn,
    );
    if (userDn === undefined) return fail();
    const asUser = client(s);
    try {
      const ok = await timed(
        'bind-user',
        async () => {
          await asUser.bind(userDn, password);
          return userDn;
        },
        (dn) => `bound as ${dn}`,
      );
      if (ok === undefined) return fail();
    } finally {
      await asUser.unbind().catch(() => undefined);
    }
    if (!s.group_base_dn) {
      steps.push({ step: 'groups', ok: true, ms: 0, detail: 'no group search root: groups not read' });
      return { steps, userDn, groups: [] };
    }
    const groups = await timed(
      'groups',
      async () => {
        const gFilter = `(&${wrapFilter(s.group_filter)}(${s.group_member_attribute}=${escapeFilterValue(userDn)}))`;
        const { searchEntries } = await service.search(s.group_base_dn, {
          scope: 'sub',
          filter: gFilter,
          attributes: [s.group_id_attribute],
        });
        return searchEntries
          .map((e) => e[s.group_id_attribute])
          .flatMap((v) => (Array.isArray(v) ? v : [v]))
          .map((v) => String(v))
          .sort();
      },
      (list) => (list.length ? list.join(', ') : 'member of no group'),
    );
    return { steps, userDn, groups: groups ?? [] };
  } finally {
    await service.unbind().catch(() => undefined);
  }
}
