import { describe, expect, it } from 'vitest';
import { api, type SyslogServer } from '@ksp/contracts';
import {
  clientPairProblem,
  createBody,
  fieldOfMessage,
  formValuesOf,
  portForProtocol,
  storedPortTyped,
  updateBody,
  type SyslogFormValues,
} from './syslog-values';

const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
const ID = '3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60';
const KEY = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----';

function stored(overrides: Partial<SyslogServer> = {}): SyslogServer {
  return {
    id: ID,
    name: 'siem',
    host: 'siem.example.com',
    port: 6514,
    protocol: 'tls',
    format: 'rfc5424',
    streams: ['server'],
    enabled: true,
    ca_cert: CERT,
    client_cert: CERT,
    has_client_key: true,
    lag: 0,
    sent: 0,
    last_sent_at: null,
    last_error: null,
    last_error_at: null,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

const values = (overrides: Partial<SyslogFormValues> = {}): SyslogFormValues => ({
  ...formValuesOf(),
  name: 'siem',
  host: 'siem.example.com',
  ...overrides,
});

describe('syslog form values', () => {
  it('start as a UDP receiver on 514 of server records, and never hold a stored key', () => {
    expect(formValuesOf()).toMatchObject({
      protocol: 'udp',
      port: 514,
      format: 'rfc5424',
      streams: ['server'],
    });
    expect(formValuesOf(stored()).client_key).toBe('');
    expect(formValuesOf(stored()).client_cert).toBe(CERT);
  });

  it("take the protocol's default port unless one was typed", () => {
    expect(portForProtocol('tcp', 514, false)).toBe(601);
    expect(portForProtocol('tls', 601, false)).toBe(6514);
    expect(portForProtocol('tls', 1514, true)).toBe(1514);
    expect(portForProtocol('udp', null, true)).toBe(514);
    expect(storedPortTyped(stored())).toBe(false);
    expect(storedPortTyped(stored({ port: 1514 }))).toBe(true);
    expect(storedPortTyped(undefined)).toBe(false);
  });

  it('refuse a client certificate without its key and a key without its certificate', () => {
    expect(clientPairProblem(values({ protocol: 'tls', client_cert: CERT }))).toBe('keyMissing');
    expect(clientPairProblem(values({ protocol: 'tls', client_key: KEY }))).toBe('certMissing');
    expect(clientPairProblem(values({ protocol: 'tls', client_cert: CERT, client_key: KEY }))).toBeNull();
    // Editing: the stored key counts; clearing the certificate alone does not.
    expect(clientPairProblem(values({ protocol: 'tls', client_cert: CERT }), stored())).toBeNull();
    expect(clientPairProblem(values({ protocol: 'tls', client_cert: '' }), stored())).toBe('certMissing');
    expect(clientPairProblem(values({ protocol: 'tls', remove_client: true }), stored())).toBeNull();
    expect(clientPairProblem(values({ protocol: 'udp', client_cert: CERT }))).toBeNull();
  });

  it('create: TLS material only for TLS, and a body the contract accepts', () => {
    const udp = createBody(values({ ca_cert: CERT, client_cert: CERT, client_key: KEY }));
    expect(udp).toEqual({
      name: 'siem',
      host: 'siem.example.com',
      protocol: 'udp',
      port: 514,
      format: 'rfc5424',
      streams: ['server'],
      enabled: true,
    });
    const tls = createBody(values({ protocol: 'tls', port: 6514, ca_cert: ` ${CERT} `, client_cert: '' }));
    expect(tls).toMatchObject({ protocol: 'tls', port: 6514, ca_cert: CERT });
    expect(tls).not.toHaveProperty('client_cert');
    expect(tls).not.toHaveProperty('client_key');
    expect(api.syslog.create.body?.safeParse(tls).success).toBe(true);
  });

  it('update: the key only when typed, certificates only when changed, "remove" sends empty strings', () => {
    const kept = updateBody(ID, values({ ...formValuesOf(stored()), name: 'siem-2' }), stored());
    expect(kept).toMatchObject({ id: ID, name: 'siem-2', protocol: 'tls', port: 6514 });
    expect(kept).not.toHaveProperty('client_key');
    expect(kept).not.toHaveProperty('client_cert');
    expect(kept).not.toHaveProperty('ca_cert');
    expect(api.syslog.update.body?.safeParse(kept).success).toBe(true);

    const replaced = updateBody(ID, { ...formValuesOf(stored()), client_key: KEY }, stored());
    expect(replaced.client_key).toBe(KEY);
    expect(replaced).not.toHaveProperty('client_cert');

    const removed = updateBody(ID, { ...formValuesOf(stored()), remove_client: true }, stored());
    expect(removed).toMatchObject({ client_cert: '', client_key: '' });

    const caCleared = updateBody(ID, { ...formValuesOf(stored()), ca_cert: '' }, stored());
    expect(caCleared.ca_cert).toBe('');

    // Leaving TLS clears what TLS stored.
    const udp = updateBody(ID, { ...formValuesOf(stored()), protocol: 'udp', port: 514 }, stored());
    expect(udp).toMatchObject({ protocol: 'udp', ca_cert: '', client_cert: '', client_key: '' });
    const plain = stored({
      protocol: 'tcp',
      port: 601,
      ca_cert: null,
      client_cert: null,
      has_client_key: false,
    });
    expect(updateBody(ID, formValuesOf(plain), plain)).not.toHaveProperty('ca_cert');
  });

  it('find the field a server refusal names, in either language', () => {
    expect(fieldOfMessage('host: nowhere.invalid does not resolve (ENOTFOUND)')).toBe('host');
    expect(fieldOfMessage('client_key：不是 PEM 私钥，或与 client_cert 不匹配')).toBe('client_key');
    expect(fieldOfMessage('ca_cert: only for the TLS protocol')).toBe('ca_cert');
    expect(fieldOfMessage('A syslog receiver named siem exists already')).toBeNull();
    expect(fieldOfMessage('secret: nope')).toBeNull();
  });
});
