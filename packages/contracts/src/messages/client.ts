import { defineMessages } from './define.js';

/** Clients and agent enrolment. Messages never carry a token secret or a key. */
export const clientMessages = defineMessages({
  en: {
    'client.notFound': 'Client {id} not found',
    'client.revoked': 'Client {name} is revoked',
    'client.deleted': 'Client {name} is deleted',
    'client.auth.unknown': 'Agent authentication failed: unknown client',
    'client.auth.signature':
      'Agent authentication failed: the signature does not match the client certificate',
    'client.auth.stale':
      "Agent authentication failed: the timestamp is too far from the server's clock or not newer than the previous call",
    'client.auth.communication': 'Agent authentication failed: communication with this client is disabled',
    'client.auth.certificate':
      'Agent authentication failed: the client certificate is revoked, expired or unknown',
    'client.auth.payload': 'payload: not a JSON object of the heartbeat fields ({reason})',
  },
  zh: {
    'client.notFound': '客户端 {id} 不存在',
    'client.revoked': '客户端 {name} 已吊销',
    'client.deleted': '客户端 {name} 已删除',
    'client.auth.unknown': '代理认证失败：未知客户端',
    'client.auth.signature': '代理认证失败：签名与客户端证书不匹配',
    'client.auth.stale': '代理认证失败：时间戳与服务器时间相差过大，或不晚于上一次调用',
    'client.auth.certificate': '代理认证失败：客户端证书已吊销、已过期或未知',
    'client.auth.communication': '代理认证失败：已禁用与该客户端的通信',
    'client.auth.payload': 'payload：不是心跳字段的 JSON 对象（{reason}）',
  },
});
