import {
  SYSLOG_DEFAULT_PORTS,
  type api,
  type BodyOf,
  type SyslogFormat,
  type SyslogProtocol,
  type SyslogServer,
  type SyslogStream,
} from '@ksp/contracts';

/** What the receiver form holds. `client_key` is never filled from the server (it is never answered). */
export interface SyslogFormValues {
  name: string;
  host: string;
  protocol: SyslogProtocol;
  port: number | null;
  format: SyslogFormat;
  streams: SyslogStream[];
  enabled: boolean;
  ca_cert: string;
  client_cert: string;
  client_key: string;
  /** Edit only: drop the stored client certificate and key (mutual TLS off). */
  remove_client: boolean;
}

export type SyslogCreateBody = BodyOf<typeof api.syslog.create>;
export type SyslogUpdateBody = BodyOf<typeof api.syslog.update>;

/** The fields a server refusal can name ("host: … does not resolve"), as the form calls them. */
export const syslogFormFields = [
  'name',
  'host',
  'port',
  'protocol',
  'format',
  'streams',
  'enabled',
  'ca_cert',
  'client_cert',
  'client_key',
] as const;
export type SyslogFormField = (typeof syslogFormFields)[number];

/** The form of a new receiver, or of a stored one (its key left empty). */
export function formValuesOf(stored?: SyslogServer): SyslogFormValues {
  if (!stored) {
    return {
      name: '',
      host: '',
      protocol: 'udp',
      port: SYSLOG_DEFAULT_PORTS.udp,
      format: 'rfc5424',
      streams: ['server'],
      enabled: true,
      ca_cert: '',
      client_cert: '',
      client_key: '',
      remove_client: false,
    };
  }
  return {
    name: stored.name,
    host: stored.host,
    protocol: stored.protocol,
    port: stored.port,
    format: stored.format,
    streams: [...stored.streams],
    enabled: stored.enabled,
    ca_cert: stored.ca_cert ?? '',
    client_cert: stored.client_cert ?? '',
    client_key: '',
    remove_client: false,
  };
}

/** Whether a stored receiver's port counts as typed: it is not its protocol's default. */
export function storedPortTyped(stored?: SyslogServer): boolean {
  return stored !== undefined && stored.port !== SYSLOG_DEFAULT_PORTS[stored.protocol];
}

/** The port after the protocol changed: the new protocol's default unless the user typed one. */
export function portForProtocol(protocol: SyslogProtocol, port: number | null, typed: boolean): number {
  return typed && port !== null ? port : SYSLOG_DEFAULT_PORTS[protocol];
}

const text = (value: string | null | undefined): string => (value ?? '').trim();

/**
 * Why the client certificate and key do not go together, or null when they do: a certificate
 * wants a key (typed now, or stored and kept), a key wants a certificate.
 */
export function clientPairProblem(
  values: Pick<SyslogFormValues, 'protocol' | 'client_cert' | 'client_key' | 'remove_client'>,
  stored?: SyslogServer,
): 'keyMissing' | 'certMissing' | null {
  if (values.protocol !== 'tls' || values.remove_client) return null;
  const hasCert = text(values.client_cert) !== '';
  const hasKey = text(values.client_key) !== '' || (stored?.has_client_key ?? false);
  if (hasCert && !hasKey) return 'keyMissing';
  if (hasKey && !hasCert) return 'certMissing';
  return null;
}

function common(values: SyslogFormValues) {
  return {
    name: values.name.trim(),
    host: values.host.trim(),
    protocol: values.protocol,
    port: values.port ?? SYSLOG_DEFAULT_PORTS[values.protocol],
    format: values.format,
    streams: [...values.streams],
    enabled: values.enabled,
  };
}

/** The body of `syslog/create`: TLS material only for TLS, and only what was given. */
export function createBody(values: SyslogFormValues): SyslogCreateBody {
  const body: SyslogCreateBody = common(values);
  if (values.protocol !== 'tls') return body;
  const ca = text(values.ca_cert);
  const cert = text(values.client_cert);
  const key = text(values.client_key);
  if (ca) body.ca_cert = ca;
  if (cert) body.client_cert = cert;
  if (key) body.client_key = key;
  return body;
}

/**
 * The body of `syslog/update` (omitted fields keep their value, an empty string clears):
 * the key only when one was typed; certificates only when they changed; "remove" and a
 * protocol other than TLS clear what is stored.
 */
export function updateBody(id: string, values: SyslogFormValues, stored: SyslogServer): SyslogUpdateBody {
  const body: SyslogUpdateBody = { id, ...common(values) };
  const storedCa = text(stored.ca_cert);
  const storedCert = text(stored.client_cert);
  if (values.protocol !== 'tls') {
    // A receiver without TLS keeps no TLS material.
    if (storedCa) body.ca_cert = '';
    if (storedCert || stored.has_client_key) {
      body.client_cert = '';
      body.client_key = '';
    }
    return body;
  }
  const ca = text(values.ca_cert);
  if (ca !== storedCa) body.ca_cert = ca;
  if (values.remove_client) {
    body.client_cert = '';
    body.client_key = '';
    return body;
  }
  const cert = text(values.client_cert);
  const key = text(values.client_key);
  if (cert !== storedCert) body.client_cert = cert;
  if (key) body.client_key = key;
  return body;
}

/**
 * The form field a server refusal names ("client_key: not a PEM private key…", "host：…"),
 * or null when it names none.
 */
export function fieldOfMessage(message: string): SyslogFormField | null {
  const match = /^\s*([a-z_]+)\s*[:：]/.exec(message);
  const name = match?.[1];
  return syslogFormFields.find((field) => field === name) ?? null;
}
