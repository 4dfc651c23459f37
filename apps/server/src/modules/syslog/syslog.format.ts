import { PRODUCT_VERSION, type LogSeverity, type SyslogFormat } from '@ksp/contracts';

/**
 * Syslog messages of server records (docs/modules.md#syslog-forwarding): an RFC 5424 header around the format's
 * text, framed per transport. Formatters are ours (docs/dependencies.md#syslog: no library does CEF,
 * LEEF and structured data well).
 */

/** What one record carries to a receiver, its place in its chain included (the sequence id). */
export interface SyslogEvent {
  id: string;
  /** `<chain>:<seq>`: unique and increasing per domain, for receivers to drop duplicates. */
  sequence: string;
  at: string;
  severity: LogSeverity;
  action: string;
  target: string;
  result: string;
  username: string;
  domain: string;
  source: string;
  ip: string;
  count: number;
  details: string;
}

/** RFC 5424 facility 13, "log audit". */
const FACILITY = 13;
const SYSLOG_SEVERITY: Record<LogSeverity, number> = { INFO: 6, WARNING: 4, ERROR: 3, CRITICAL: 2 };
const CEF_SEVERITY: Record<LogSeverity, number> = { INFO: 3, WARNING: 6, ERROR: 8, CRITICAL: 10 };
/** Private enterprise number placeholder of RFC 5612 (documentation): our SD-ID is ksp@32473. */
const SD_ID = 'ksp@32473';
const BOM = '\uFEFF';

/** RFC 5424 header fields are printable US-ASCII without spaces; at most `max` characters. */
const token = (text: string, max: number) => text.replace(/[^\x21-\x7e]/g, '_').slice(0, max) || '-';
const sdValue = (text: string) => text.replace(/[\\"\]]/g, (c) => `\\${c}`);
const cefHeader = (text: string) => text.replace(/[\\|]/g, (c) => `\\${c}`).replace(/[\r\n]+/g, ' ');
const cefValue = (text: string) => text.replace(/[\\=]/g, (c) => `\\${c}`).replace(/\r\n|\r|\n/g, '\\n');
const leefValue = (text: string) => text.replace(/[\t\r\n]+/g, ' ');

function body(format: SyslogFormat, e: SyslogEvent): { sd: string; msg: string } {
  switch (format) {
    case 'rfc5424': {
      const params: [string, string | number][] = [
        ['seq', e.sequence],
        ['id', e.id],
        ['action', e.action],
        ['target', e.target],
        ['result', e.result],
        ['user', e.username],
        ['domain', e.domain],
        ['source', e.source],
        ['ip', e.ip],
        ['count', e.count],
        ['details', e.details],
      ];
      const sd = `[${SD_ID} ${params.map(([k, v]) => `${k}="${sdValue(String(v))}"`).join(' ')}]`;
      return { sd, msg: `${BOM}${e.username} ${e.action} ${e.target}: ${e.result}` };
    }
    case 'cef': {
      const ext: [string, string | number][] = [
        ['rt', Date.parse(e.at)],
        ['act', e.action],
        ['msg', e.target],
        ['outcome', e.result],
        ['suser', e.username],
        ...(e.ip ? ([['src', e.ip]] as [string, string][]) : []),
        ['cnt', e.count],
        ['externalId', e.sequence],
        ['cs1Label', 'domain'],
        ['cs1', e.domain],
        ['cs2Label', 'source'],
        ['cs2', e.source],
        ['cs3Label', 'details'],
        ['cs3', e.details],
      ];
      const header = [
        'CEF:0',
        'KSP',
        'KSP',
        PRODUCT_VERSION,
        e.action,
        e.action,
        String(CEF_SEVERITY[e.severity]),
      ]
        .map((part, i) => (i === 0 ? part : cefHeader(part)))
        .join('|');
      return { sd: '-', msg: `${header}|${ext.map(([k, v]) => `${k}=${cefValue(String(v))}`).join(' ')}` };
    }
    case 'leef': {
      const attrs: [string, string | number][] = [
        ['devTime', e.at],
        ['devTimeFormat', "yyyy-MM-dd'T'HH:mm:ss.SSSX"],
        ['sev', CEF_SEVERITY[e.severity]],
        ['usrName', e.username],
        ...(e.ip ? ([['src', e.ip]] as [string, string][]) : []),
        ['action', e.action],
        ['resource', e.target],
        ['result', e.result],
        ['domain', e.domain],
        ['source', e.source],
        ['count', e.count],
        ['sequence', e.sequence],
        ['id', e.id],
        ['details', e.details],
      ];
      const header = `LEEF:2.0|KSP|KSP|${PRODUCT_VERSION}|${e.action.replace(/\|/g, '_')}|x09|`;
      return { sd: '-', msg: `${header}${attrs.map(([k, v]) => `${k}=${leefValue(String(v))}`).join('\t')}` };
    }
    case 'json':
      return {
        sd: '-',
        msg: JSON.stringify({
          id: e.id,
          sequence: e.sequence,
          at: e.at,
          severity: e.severity,
          action: e.action,
          target: e.target,
          result: e.result,
          username: e.username,
          domain: e.domain,
          source: e.source,
          ip: e.ip,
          count: e.count,
          details: safeJson(e.details),
        }),
      };
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** One syslog message: `<PRI>1 TIMESTAMP HOST APP PROCID MSGID SD MSG`. */
export function formatMessage(format: SyslogFormat, e: SyslogEvent, host: string): string {
  const pri = FACILITY * 8 + SYSLOG_SEVERITY[e.severity];
  const { sd, msg } = body(format, e);
  return `<${pri}>1 ${e.at} ${token(host, 255)} ksp ${process.pid} ${token(e.action, 32)} ${sd} ${msg}`;
}

/** RFC 6587 octet counting for TCP and TLS: the length in bytes, a space, the message. */
export function frameOctetCounted(message: string): Buffer {
  const bytes = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from(`${bytes.length} `, 'ascii'), bytes]);
}

/** What one client record (an agent's) carries to a receiver. */
export interface ClientSyslogEvent {
  id: string;
  /** `client:<seq>`: the order of receipt, for receivers to drop duplicates. */
  sequence: string;
  /** The server's time of receipt (the message's timestamp) and the agent's own. */
  receivedAt: string;
  agentAt: string;
  level: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'FATAL';
  action: string;
  effect: string;
  policy: string;
  guardPoint: string;
  osUser: string;
  process: string;
  resource: string;
  clientId: string;
  clientName: string;
  clientOs: string;
  ip: string;
  domain: string;
  details: string;
}

const CLIENT_SD_ID = 'ksp-client@32473';
const CLIENT_SYSLOG_SEVERITY: Record<ClientSyslogEvent['level'], number> = {
  DEBUG: 7,
  INFO: 6,
  WARN: 4,
  ERROR: 3,
  FATAL: 2,
};
const CLIENT_CEF_SEVERITY: Record<ClientSyslogEvent['level'], number> = {
  DEBUG: 1,
  INFO: 3,
  WARN: 6,
  ERROR: 8,
  FATAL: 10,
};

function clientBody(format: SyslogFormat, e: ClientSyslogEvent): { sd: string; msg: string } {
  const optional = (key: string, value: string): [string, string][] => (value ? [[key, value]] : []);
  switch (format) {
    case 'rfc5424': {
      const params: [string, string][] = [
        ['seq', e.sequence],
        ['id', e.id],
        ['action', e.action],
        ['effect', e.effect],
        ['client', e.clientName],
        ['client_id', e.clientId],
        ['os', e.clientOs],
        ['ip', e.ip],
        ['user', e.osUser],
        ['process', e.process],
        ['resource', e.resource],
        ['guard_point', e.guardPoint],
        ['policy', e.policy],
        ['domain', e.domain],
        ['agent_time', e.agentAt],
        ['details', e.details],
      ];
      const sd = `[${CLIENT_SD_ID} ${params.map(([k, v]) => `${k}="${sdValue(v)}"`).join(' ')}]`;
      return { sd, msg: `${BOM}${e.clientName} ${e.osUser || '-'} ${e.action} ${e.resource}: ${e.effect}` };
    }
    case 'cef': {
      const ext: [string, string | number][] = [
        ['rt', Date.parse(e.receivedAt)],
        ['start', Date.parse(e.agentAt)],
        ['act', e.action],
        ['outcome', e.effect],
        ...optional('suser', e.osUser),
        ...optional('src', e.ip),
        ['shost', e.clientName],
        ...optional('sproc', e.process),
        ...optional('filePath', e.resource),
        ['externalId', e.sequence],
        ['cs1Label', 'domain'],
        ['cs1', e.domain],
        ['cs2Label', 'policy'],
        ['cs2', e.policy],
        ['cs3Label', 'guardPoint'],
        ['cs3', e.guardPoint],
        ['cs4Label', 'details'],
        ['cs4', e.details],
        ['cs5Label', 'clientId'],
        ['cs5', e.clientId],
        ['cs6Label', 'clientOs'],
        ['cs6', e.clientOs],
      ];
      const header = [
        'CEF:0',
        'KSP',
        'KSP Agent',
        PRODUCT_VERSION,
        `client.${e.action}`,
        e.action,
        String(CLIENT_CEF_SEVERITY[e.level]),
      ]
        .map((part, i) => (i === 0 ? part : cefHeader(part)))
        .join('|');
      return { sd: '-', msg: `${header}|${ext.map(([k, v]) => `${k}=${cefValue(String(v))}`).join(' ')}` };
    }
    case 'leef': {
      const attrs: [string, string | number][] = [
        ['devTime', e.receivedAt],
        ['devTimeFormat', "yyyy-MM-dd'T'HH:mm:ss.SSSX"],
        ['agentTime', e.agentAt],
        ['sev', CLIENT_CEF_SEVERITY[e.level]],
        ...optional('usrName', e.osUser),
        ...optional('src', e.ip),
        ['identHostName', e.clientName],
        ['action', e.action],
        ['result', e.effect],
        ['resource', e.resource],
        ['process', e.process],
        ['guardPoint', e.guardPoint],
        ['policy', e.policy],
        ['domain', e.domain],
        ['clientId', e.clientId],
        ['clientOs', e.clientOs],
        ['sequence', e.sequence],
        ['id', e.id],
        ['details', e.details],
      ];
      const header = `LEEF:2.0|KSP|KSP Agent|${PRODUCT_VERSION}|client.${e.action.replace(/\|/g, '_')}|x09|`;
      return { sd: '-', msg: `${header}${attrs.map(([k, v]) => `${k}=${leefValue(String(v))}`).join('\t')}` };
    }
    case 'json':
      return {
        sd: '-',
        msg: JSON.stringify({
          stream: 'client',
          id: e.id,
          sequence: e.sequence,
          received_at: e.receivedAt,
          at: e.agentAt,
          level: e.level,
          action: e.action,
          effect: e.effect,
          policy: e.policy,
          guard_point: e.guardPoint,
          os_user: e.osUser,
          process: e.process,
          resource: e.resource,
          client_id: e.clientId,
          client_name: e.clientName,
          client_os: e.clientOs,
          ip: e.ip,
          domain: e.domain,
          details: safeJson(e.details),
        }),
      };
  }
}

/** One syslog message of a client record, with the agent's level as its severity. */
export function formatClientMessage(format: SyslogFormat, e: ClientSyslogEvent, host: string): string {
  const pri = FACILITY * 8 + CLIENT_SYSLOG_SEVERITY[e.level];
  const { sd, msg } = clientBody(format, e);
  return `<${pri}>1 ${e.receivedAt} ${token(host, 255)} ksp-agent ${process.pid} ${token(e.action, 32)} ${sd} ${msg}`;
}
