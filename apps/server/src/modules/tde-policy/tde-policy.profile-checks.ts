import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { isIP } from 'node:net';
import { invalid } from '../../platform/errors.js';
import type { Settings } from './tde-policy.model.js';

// Entry rules of a profile's syslog servers and LDT QoS (README.md "Syslog and LDT QoS").

const HOST = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;
const pemCertificates = (text: string) =>
  text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];

function checkCertificates(field: string, text: string) {
  const blocks = pemCertificates(text);
  if (blocks.length === 0)
    throw invalid('tdePolicy.syslogBadCert', { field, reason: 'no BEGIN CERTIFICATE block' });
  for (const pem of blocks) {
    try {
      new X509Certificate(pem);
    } catch (err) {
      throw invalid('tdePolicy.syslogBadCert', {
        field,
        reason: err instanceof Error ? err.message.slice(0, 120) : 'unreadable',
      });
    }
  }
}

/** The syslog servers: host names, no server twice, TLS material only for TLS and matching. */
export function checkSyslog(settings: Settings, keys: (string | null)[]) {
  const seen = new Set<string>();
  settings.syslog_settings.servers.forEach((server, i) => {
    const field = `syslog_settings.servers[${i}]`;
    if (!isIP(server.name) && !HOST.test(server.name))
      throw invalid('tdePolicy.syslogHost', { field: `${field}.name` });
    const id = `${server.name.toLowerCase()}:${server.port}`;
    if (seen.has(id))
      throw invalid('tdePolicy.syslogDuplicate', { field, name: server.name, port: server.port });
    seen.add(id);
    const key = keys[i] ?? null;
    if (server.protocol !== 'TLS') {
      if (server.cacertificate) throw invalid('tdePolicy.syslogTlsOnly', { field: `${field}.cacertificate` });
      if (server.certificate) throw invalid('tdePolicy.syslogTlsOnly', { field: `${field}.certificate` });
      if (key) throw invalid('tdePolicy.syslogTlsOnly', { field: `${field}.privatekey` });
      return;
    }
    if (!server.cacertificate)
      throw invalid('tdePolicy.syslogCaRequired', { field: `${field}.cacertificate` });
    checkCertificates(`${field}.cacertificate`, server.cacertificate);
    if (server.certificate && !key) throw invalid('tdePolicy.syslogPair', { field: `${field}.privatekey` });
    if (key && !server.certificate) throw invalid('tdePolicy.syslogPair', { field: `${field}.certificate` });
    if (server.certificate && key) {
      checkCertificates(`${field}.certificate`, server.certificate);
      try {
        const pub = createPublicKey(createPrivateKey(key)).export({ type: 'spki', format: 'der' });
        const certKey = new X509Certificate(pemCertificates(server.certificate)[0]!).publicKey.export({
          type: 'spki',
          format: 'der',
        });
        if (!pub.equals(certKey)) throw new Error('mismatch');
      } catch {
        throw invalid('tdePolicy.syslogBadKey', { field: `${field}.privatekey` });
      }
    }
  });
}

/** LDT QoS: windows only for the CUSTOM schedules (and then at least one), MB/s or CPU %. */
export function checkQos(settings: Settings) {
  const q = settings.ldt_qos;
  const custom = q.ldt_qos_schedule === 'CUSTOM' || q.ldt_qos_schedule === 'CUSTOM_WITH_OVERWRITE';
  if (custom && q.qos_schedules.length === 0)
    throw invalid('tdePolicy.qosSchedulesRequired', {
      field: 'ldt_qos.qos_schedules',
      schedule: q.ldt_qos_schedule,
    });
  if (!custom && q.qos_schedules.length > 0)
    throw invalid('tdePolicy.qosSchedulesUnused', { field: 'ldt_qos.qos_schedules' });
  q.qos_schedules.forEach((w, i) => {
    if (w.start_weekday === w.end_weekday && w.start_time === w.end_time)
      throw invalid('tdePolicy.qosWindowEmpty', { field: `ldt_qos.qos_schedules[${i}]` });
  });
  if ((q.rekey_rate_mbps === null) === (q.cpu_percent === null)) throw invalid('tdePolicy.qosRateOrCpu');
}
