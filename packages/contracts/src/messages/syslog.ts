import { defineMessages } from './define.js';

/** Syslog forwarding (settings › syslog). */
export const syslogMessages = defineMessages({
  en: {
    'syslog.notFound': 'No syslog receiver {id}',
    'syslog.nameTaken': 'A syslog receiver named {name} exists already',
    'syslog.hostUnresolved': 'host: {host} does not resolve ({reason})',
    'syslog.badCaCert': 'ca_cert: not a PEM certificate ({reason})',
    'syslog.badClientCert': 'client_cert: not a PEM certificate ({reason})',
    'syslog.badClientKey': 'client_key: not a PEM private key, or it does not match client_cert',
    'syslog.clientPair': 'client_cert and client_key go together',
    'syslog.tlsOnly': '{field}: only for the TLS protocol',
  },
  zh: {
    'syslog.notFound': 'Syslog 接收端 {id} 不存在',
    'syslog.nameTaken': '名为 {name} 的 Syslog 接收端已存在',
    'syslog.hostUnresolved': 'host：无法解析 {host}（{reason}）',
    'syslog.badCaCert': 'ca_cert：不是 PEM 证书（{reason}）',
    'syslog.badClientCert': 'client_cert：不是 PEM 证书（{reason}）',
    'syslog.badClientKey': 'client_key：不是 PEM 私钥，或与 client_cert 不匹配',
    'syslog.clientPair': 'client_cert 与 client_key 须同时提供',
    'syslog.tlsOnly': '{field}：仅用于 TLS 协议',
  },
});
