import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { SyslogProtocol } from '@ksp/contracts';
import { invalid } from '../../platform/errors.js';

function splitPem(text: string): string[] {
  return text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

function checkCertificates(text: string, key: 'syslog.badCaCert' | 'syslog.badClientCert') {
  const blocks = splitPem(text);
  if (blocks.length === 0) throw invalid(key, { reason: 'no BEGIN CERTIFICATE block' });
  for (const pem of blocks) {
    try {
      new X509Certificate(pem);
    } catch (err) {
      throw invalid(key, { reason: err instanceof Error ? err.message.slice(0, 120) : 'unreadable' });
    }
  }
}

/** Checks a receiver's settings as they will be stored: host, certificates, key pair. */
export async function checkSettings(next: {
  host: string;
  protocol: SyslogProtocol;
  ca_cert: string | null;
  client_cert: string | null;
  client_key: string | null;
}): Promise<void> {
  if (!isIP(next.host)) {
    try {
      await lookup(next.host);
    } catch (err) {
      throw invalid('syslog.hostUnresolved', {
        host: next.host,
        reason: (err as NodeJS.ErrnoException).code ?? 'unknown',
      });
    }
  }
  if (next.protocol !== 'tls') {
    for (const field of ['ca_cert', 'client_cert', 'client_key'] as const)
      if (next[field]) throw invalid('syslog.tlsOnly', { field });
    return;
  }
  if (next.ca_cert) checkCertificates(next.ca_cert, 'syslog.badCaCert');
  if (Boolean(next.client_cert) !== Boolean(next.client_key)) throw invalid('syslog.clientPair');
  if (next.client_cert && next.client_key) {
    checkCertificates(next.client_cert, 'syslog.badClientCert');
    try {
      const key = createPrivateKey(next.client_key);
      const pub = createPublicKey(key).export({ type: 'spki', format: 'der' });
      const certKey = new X509Certificate(splitPem(next.client_cert)[0]!).publicKey.export({
        type: 'spki',
        format: 'der',
      });
      if (!pub.equals(certKey)) throw new Error('mismatch');
    } catch {
      throw invalid('syslog.badClientKey');
    }
  }
}
