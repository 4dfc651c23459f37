import { defineMessages } from './define.js';

/** The log page (server records and client records). */
export const logMessages = defineMessages({
  en: {
    'log.notFound': 'No log record {id}',
    'log.sealed': 'The system is sealed: the audit chains cannot be checked until it is unsealed',
    'log.badCursor': 'after: not a cursor this list handed out (use next_cursor of the page before)',
    'log.pageTooDeep':
      "page: pages by number reach the first {max} records; to read farther, pass each page's next_cursor as after",
    'clientLog.notFound': 'No client record {id}',
    'clientLog.auth.missing': 'The upload needs an "Authorization: Agent <JWS>" header',
    'clientLog.auth.malformed': 'The agent token is not a valid compact JWS',
    'clientLog.auth.algorithm': "The agent token's algorithm does not suit the certificate's key",
    'clientLog.auth.certificate': 'The agent token carries no readable client certificate (x5c)',
    'clientLog.auth.signature': "The agent token's signature does not match the certificate's key",
    'clientLog.auth.unknownCa': 'The client certificate was not issued by an active local CA of this server',
    'clientLog.auth.certValidity': 'The client certificate is not valid at this time',
    'clientLog.auth.revoked': 'The client certificate is revoked',
    'clientLog.auth.notClient':
      'The client certificate is not for client authentication (extended key usage)',
    'clientLog.auth.audience': 'The agent token is not for this call (aud)',
    'clientLog.auth.lifetime':
      'The agent token must carry iat and exp, live at most 300 seconds, and be valid now',
    'clientLog.auth.expired': 'The agent token has expired',
    'clientLog.auth.jti': 'The agent token needs a jti of 8 to 128 characters',
    'clientLog.auth.replay': 'The agent token was used already (jti seen before)',
    'clientLog.auth.bodyHash': "The request body does not match the agent token's body hash (bh)",
  },
  zh: {
    'log.notFound': '日志记录 {id} 不存在',
    'log.sealed': '系统处于封存状态：解封前无法校验审计链',
    'log.badCursor': 'after：不是本列表给出的游标（请使用上一页的 next_cursor）',
    'log.pageTooDeep':
      'page：按页码只能查看前 {max} 条记录；要继续往后读，请把每页的 next_cursor 作为 after 传入',
    'clientLog.notFound': '客户端记录 {id} 不存在',
    'clientLog.auth.missing': '上传需要 "Authorization: Agent <JWS>" 请求头',
    'clientLog.auth.malformed': '客户端令牌不是有效的 JWS 紧凑格式',
    'clientLog.auth.algorithm': '客户端令牌的算法与证书的密钥不符',
    'clientLog.auth.certificate': '客户端令牌未携带可读取的客户端证书（x5c）',
    'clientLog.auth.signature': '客户端令牌的签名与证书的密钥不匹配',
    'clientLog.auth.unknownCa': '客户端证书不是由本服务器的有效本地 CA 签发的',
    'clientLog.auth.certValidity': '客户端证书当前不在有效期内',
    'clientLog.auth.revoked': '客户端证书已被吊销',
    'clientLog.auth.notClient': '客户端证书不能用于客户端认证（扩展密钥用法）',
    'clientLog.auth.audience': '客户端令牌不是用于此调用的（aud）',
    'clientLog.auth.lifetime': '客户端令牌必须包含 iat 和 exp，有效期最长 300 秒，且当前有效',
    'clientLog.auth.expired': '客户端令牌已过期',
    'clientLog.auth.jti': '客户端令牌需要 8 到 128 个字符的 jti',
    'clientLog.auth.replay': '客户端令牌已被使用过（jti 重复）',
    'clientLog.auth.bodyHash': '请求体与客户端令牌中的请求体哈希（bh）不符',
  },
});
