import { z } from 'zod';
import { defineCall } from '../call.js';
import { Id, IdsBody, PageQuery, pageOf } from '../common.js';
import { NAME_PATTERN } from '../rules/text.js';

/**
 * Syslog forwarding (docs/modules.md#syslog-forwarding): the server records go to syslog receivers, each in its
 * format and over its transport, from an outbox that survives restarts and dead receivers.
 */
export const syslogProtocols = ['udp', 'tcp', 'tls'] as const;
export type SyslogProtocol = (typeof syslogProtocols)[number];
export const syslogFormats = ['rfc5424', 'cef', 'leef', 'json'] as const;
export type SyslogFormat = (typeof syslogFormats)[number];
/** What a receiver gets: the server records, the client records (agents), the alarms. */
export const syslogStreams = ['server', 'client', 'alarm'] as const;
export type SyslogStream = (typeof syslogStreams)[number];
export const SYSLOG_DEFAULT_PORTS: Record<SyslogProtocol, number> = { udp: 514, tcp: 601, tls: 6514 };

const Pem = z.string().trim().max(65_536);

export const SyslogInput = z.object({
  name: z.string().trim().min(1).max(64).regex(NAME_PATTERN),
  host: z
    .string()
    .trim()
    .min(1)
    .max(253)
    .describe('host name or IP address of the receiver; a name must resolve'),
  port: z.number().int().min(1).max(65535).describe('default 514 (UDP), 601 (TCP), 6514 (TLS)').optional(),
  protocol: z.enum(syslogProtocols),
  format: z
    .enum(syslogFormats)
    .default('rfc5424')
    .describe('rfc5424: RFC 5424 with structured data; cef, leef, json: that text as the RFC 5424 message'),
  streams: z.array(z.enum(syslogStreams)).min(1).max(3).default(['server']),
  enabled: z.boolean().default(true),
  ca_cert: Pem.optional().describe("TLS: PEM CA certificate(s) the receiver's certificate must chain to"),
  client_cert: Pem.optional().describe('TLS, optional: PEM client certificate for mutual TLS'),
  client_key: Pem.optional().describe(
    'TLS, with client_cert: its PEM private key (unencrypted PKCS#8, PKCS#1 or SEC1); stored sealed, never answered',
  ),
});

export const SyslogServer = z.object({
  id: z.string(),
  name: z.string(),
  host: z.string(),
  port: z.number().int(),
  protocol: z.enum(syslogProtocols),
  format: z.enum(syslogFormats),
  streams: z.array(z.enum(syslogStreams)),
  enabled: z.boolean(),
  ca_cert: z.string().nullable(),
  client_cert: z.string().nullable(),
  has_client_key: z.boolean().describe('a client private key is stored (it is never answered)'),
  lag: z.number().int().describe('records waiting for this receiver'),
  sent: z.number().int().describe('records delivered since the receiver was added'),
  last_sent_at: z.string().nullable(),
  last_error: z.string().nullable().describe('the last delivery failure, cleared by the next success'),
  last_error_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type SyslogServer = z.infer<typeof SyslogServer>;

export const syslogCalls = {
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/syslog/list',
    summary: 'Syslog receivers with their delivery position, lag and last error',
    tag: 'syslog',
    access: 'syslog:read',
    scope: 'system',
    changesAccess: false,
    query: PageQuery,
    data: pageOf(SyslogServer),
  }),
  create: defineCall({
    method: 'POST',
    path: '/v1/ksp/syslog/create',
    summary: 'Add a syslog receiver; it receives the records written from now on',
    tag: 'syslog',
    access: 'syslog:write',
    scope: 'system',
    changesAccess: false,
    body: SyslogInput,
    data: SyslogServer,
  }),
  update: defineCall({
    method: 'POST',
    path: '/v1/ksp/syslog/update',
    summary:
      'Change a syslog receiver (omitted fields keep their value; an empty string clears a certificate or key)',
    tag: 'syslog',
    access: 'syslog:write',
    scope: 'system',
    changesAccess: false,
    body: SyslogInput.partial().extend({ id: Id }),
    data: SyslogServer,
  }),
  delete: defineCall({
    method: 'POST',
    path: '/v1/ksp/syslog/delete',
    summary: 'Remove syslog receivers',
    tag: 'syslog',
    access: 'syslog:write',
    scope: 'system',
    changesAccess: false,
    body: IdsBody,
    data: z.object({ deleted: z.number().int() }),
  }),
  test: defineCall({
    method: 'POST',
    path: '/v1/ksp/syslog/test',
    summary: 'Send one test event to a receiver now and report the outcome',
    tag: 'syslog',
    access: 'syslog:write',
    scope: 'system',
    changesAccess: false,
    body: z.object({ id: Id }),
    data: z.object({
      ok: z.boolean(),
      detail: z
        .string()
        .describe(
          'what happened, in words (English): "delivered", "sent (UDP has no acknowledgement)" or the error',
        ),
      ms: z.number(),
    }),
  }),
};
