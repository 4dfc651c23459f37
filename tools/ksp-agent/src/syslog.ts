import { execFile } from 'node:child_process';
import { createDecipheriv, type KeyObject } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { hostname } from 'node:os';
import { connect as connectTls } from 'node:tls';
import type { AgentProfile, AgentSealedSecret, AgentSyslogServer } from '@ksp/contracts';
import { unwrapKey } from './keys.js';
import type { LogRecord } from './wire.js';

/** What the agent writes as APP-NAME, and its version in CEF and LEEF headers. */
const APP = 'ksp-agent';
const VERSION = '1.9.0';
/** RFC 5424 facility: local0 (16). */
const FACILITY = 16;
const LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const;
/** RFC 5424 severities of the log levels. */
const SEVERITY: Record<LogRecord['level'], number> = { DEBUG: 7, INFO: 6, WARN: 4, ERROR: 3, FATAL: 2 };
/** CEF severities (0–10) of the log levels. */
const CEF_SEVERITY: Record<LogRecord['level'], number> = { DEBUG: 1, INFO: 3, WARN: 6, ERROR: 8, FATAL: 10 };
/** `logger` priorities of the log levels (the local system log). */
const LOCAL_PRIORITY: Record<LogRecord['level'], string> = {
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warning',
  ERROR: 'err',
  FATAL: 'crit',
};

export type SyslogSettings = NonNullable<AgentProfile['syslog']>;

/** The records at or above the threshold. */
export const atThreshold = (records: LogRecord[], threshold: LogRecord['level']) =>
  records.filter((r) => LEVELS.indexOf(r.level) >= LEVELS.indexOf(threshold));

/** The fields every format carries, in this order. */
function fieldsOf(r: LogRecord): [string, string][] {
  const fields: [string, string][] = [
    ['action', r.action],
    ['effect', r.effect],
  ];
  for (const k of ['policy', 'guard_point', 'os_user', 'process', 'resource'] as const) {
    const v = r[k];
    if (v !== undefined) fields.push([k, v]);
  }
  if (r.details) fields.push(['details', JSON.stringify(r.details)]);
  return fields;
}

/** A one-line text of the record: `read deny policy="finance" resource="/data/x"`. */
export function plainText(r: LogRecord): string {
  const rest = fieldsOf(r)
    .slice(2)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return [r.level, r.action, r.effect, ...rest].join(' ').replace(/[\r\n]+/g, ' ');
}

const sdEscape = (v: string) => v.replace(/["\\\]]/g, (c) => `\\${c}`);
const cefHeader = (v: string) => v.replace(/[\\|]/g, (c) => `\\${c}`);
const cefValue = (v: string) =>
  v
    .replace(/[\\=]/g, (c) => `\\${c}`)
    .replace(/\r?\n/g, '\\n')
    .replace(/\r/g, '\\r');
const leefValue = (v: string) => v.replace(/[\t\r\n]+/g, ' ');

function cef(r: LogRecord): string {
  const ext: [string, string | undefined][] = [
    ['rt', String(Date.parse(r.at))],
    ['act', r.effect],
    ['suser', r.os_user],
    ['sproc', r.process],
    ['fname', r.resource],
    ['cs1Label', r.policy === undefined ? undefined : 'policy'],
    ['cs1', r.policy],
    ['cs2Label', r.guard_point === undefined ? undefined : 'guard_point'],
    ['cs2', r.guard_point],
    ['msg', r.details ? JSON.stringify(r.details) : undefined],
  ];
  return [
    'CEF:0',
    'KSP',
    APP,
    VERSION,
    cefHeader(r.action),
    cefHeader(`${r.action} ${r.effect}`),
    String(CEF_SEVERITY[r.level]),
    ext
      .filter((e): e is [string, string] => e[1] !== undefined)
      .map(([k, v]) => `${k}=${cefValue(v)}`)
      .join(' '),
  ].join('|');
}

function leef(r: LogRecord): string {
  const attrs: [string, string | undefined][] = [
    ['devTime', r.at],
    ['sev', String(CEF_SEVERITY[r.level])],
    ['effect', r.effect],
    ['usrName', r.os_user],
    ['proc', r.process],
    ['resource', r.resource],
    ['policy', r.policy],
    ['guard_point', r.guard_point],
    ['details', r.details ? JSON.stringify(r.details) : undefined],
  ];
  return `LEEF:2.0|KSP|${APP}|${VERSION}|${leefValue(r.action)}|x09|${attrs
    .filter((a): a is [string, string] => a[1] !== undefined)
    .map(([k, v]) => `${k}=${leefValue(v)}`)
    .join('\t')}`;
}

/**
 * One syslog message of a record in the server's format:
 * - RFC5424: `<PRI>1 TIMESTAMP HOST ksp-agent PID MSGID [ksp@32473 …] text`;
 * - CEF and LEEF: their line as the MSG of the same RFC 5424 header (no structured data);
 * - PLAIN: `<PRI>TIMESTAMP HOST ksp-agent[PID]: text` (a BSD-style line).
 */
export function formatRecord(
  r: LogRecord,
  format: AgentSyslogServer['message_format'],
  host = hostname(),
): string {
  const pri = FACILITY * 8 + SEVERITY[r.level];
  const msgid = r.action.replace(/[^\x21-\x7e]/g, '_').slice(0, 32) || '-';
  const header = `<${pri}>1 ${r.at} ${host} ${APP} ${process.pid} ${msgid}`;
  switch (format) {
    case 'PLAIN':
      return `<${pri}>${r.at} ${host} ${APP}[${process.pid}]: ${plainText(r)}`;
    case 'CEF':
      return `${header} - ${cef(r)}`;
    case 'LEEF':
      return `${header} - ${leef(r)}`;
    case 'RFC5424': {
      const sd = fieldsOf(r)
        .map(([k, v]) => `${k}="${sdEscape(v)}"`)
        .join(' ');
      return `${header} [ksp@32473 ${sd}] ${plainText(r)}`;
    }
  }
}

/** The TLS client key of a server: unwrapped with the agent's key (contracts `AgentSealedSecret`). */
export function openSecret(secret: AgentSealedSecret, privateKey: KeyObject): string {
  const cek = unwrapKey(secret.cek, privateKey);
  try {
    const decipher = createDecipheriv('aes-256-gcm', cek, Buffer.from(secret.iv, 'base64'));
    decipher.setAAD(Buffer.from(secret.cek.id, 'utf8'));
    decipher.setAuthTag(Buffer.from(secret.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(secret.data, 'base64')), decipher.final()]).toString(
      'utf8',
    );
  } finally {
    cek.fill(0);
  }
}

const TIMEOUT_MS = 5000;

/** Sends the messages to one server: UDP datagrams, or TCP/TLS with RFC 6587 octet counting. */
export async function sendTo(server: AgentSyslogServer, messages: string[], privateKey?: KeyObject) {
  if (messages.length === 0) return;
  if (server.protocol === 'UDP') {
    const socket = createSocket(isIP(server.name) === 6 ? 'udp6' : 'udp4');
    try {
      for (const m of messages)
        await new Promise<void>((resolve, reject) =>
          socket.send(Buffer.from(m, 'utf8'), server.port, server.name, (err) =>
            err ? reject(err) : resolve(),
          ),
        );
    } finally {
      socket.close();
    }
    return;
  }
  const frames = Buffer.concat(
    messages.map((m) => {
      const bytes = Buffer.from(m, 'utf8');
      return Buffer.concat([Buffer.from(`${bytes.length} `, 'ascii'), bytes]);
    }),
  );
  await new Promise<void>((resolve, reject) => {
    let socket: Socket;
    const fail = (err: Error) => {
      socket.destroy();
      reject(err);
    };
    const write = () => socket.end(frames, () => resolve());
    if (server.protocol === 'TLS') {
      const key = server.privatekey && privateKey ? openSecret(server.privatekey, privateKey) : undefined;
      socket = connectTls(
        {
          host: server.name,
          port: server.port,
          ...(server.cacertificate ? { ca: server.cacertificate } : {}),
          ...(server.certificate && key ? { cert: server.certificate, key } : {}),
          ...(isIP(server.name) ? {} : { servername: server.name }),
        },
        write,
      );
    } else {
      socket = connectTcp({ host: server.name, port: server.port }, write);
    }
    socket.setTimeout(TIMEOUT_MS, () => fail(new Error('timed out')));
    socket.on('error', fail);
  });
}

/** The local system log, through `logger` (util-linux); skipped when it is not there. */
function sendLocal(records: LogRecord[]) {
  for (const r of records)
    execFile('logger', ['-t', APP, '-p', `local0.${LOCAL_PRIORITY[r.level]}`, plainText(r)], () => undefined);
}

/**
 * Sends the records at or above the profile's syslog threshold to its syslog servers (and the
 * local system log with `local`), when the profile enables syslog. Best effort: a server that
 * cannot be reached is reported on stderr; the records are uploaded to KSP all the same.
 */
export async function sendToSyslog(
  settings: SyslogSettings | undefined,
  records: LogRecord[],
  privateKey?: KeyObject,
  report: (message: string) => void = () => undefined,
) {
  if (!settings?.enabled) return;
  const wanted = atThreshold(records, settings.threshold);
  if (wanted.length === 0) return;
  if (settings.local) sendLocal(wanted);
  await Promise.all(
    settings.servers.map((server) =>
      sendTo(
        server,
        wanted.map((r) => formatRecord(r, server.message_format)),
        privateKey,
      ).catch((err: unknown) =>
        report(
          `syslog ${server.protocol} ${server.name}:${server.port}: ${err instanceof Error ? err.message : String(err)}`,
        ),
      ),
    ),
  );
}
