import { defineMessages } from './define.js';

/** TDE database clients and the key endpoint (docs/tde-database.md). */
export const tdeDatabaseMessages = defineMessages({
  en: {
    'tdeDatabase.nameTaken': 'A database client named {name} already exists in this domain',
    'tdeDatabase.notFound': 'Database client {id} was not found',
    'tdeDatabase.keyNotFound': 'Key {id} was not found in this domain',
    'tdeDatabase.keyNotAes256': 'Key {name} is {algorithm}: a database reads AES-256 keys only',
    'tdeDatabase.keyNotUsable': 'Key {name} is {state}: only a key in use can be granted',
    'tdeDatabase.tooManyKeys': 'A database client may be granted at most {max} keys',
    'tdeDatabase.grantNotFound': 'Key id {db_key_id} is not granted to this client',
    'tdeDatabase.nothingToChange': 'Give description, ip_whitelist or enabled',
    'dbKey.tokenMissing': "permission denied: no X-Vault-Token header (the database client's KSP token)",
    'dbKey.tokenInvalid':
      'permission denied: the token is not a KSP database client token, or it was revoked or regenerated',
    'dbKey.clientDisabled': 'permission denied: database client {client} is disabled in KSP',
    'dbKey.addressRefused':
      'permission denied: address {ip} is not in the IP whitelist of database client {client}',
    'dbKey.notGranted': 'permission denied: key id {db_key_id} is not granted to database client {client}',
    'dbKey.keyState':
      'permission denied: key id {db_key_id} (KSP key {name}) is {state}; KSP serves keys in use only',
    'dbKey.versionNotFound': 'key id {db_key_id} has no version {version}',
    'dbKey.badKeyId': 'the key id must be a whole number from 1 to 4294967295',
    'dbKey.badVersion': 'version must be a whole number from 1 to 4294967295',
    'dbKey.unsupported':
      'KSP serves only GET {path}/data/<key id>[?version=N] and GET {check}; {method} {url} is not one of them',
  },
  zh: {
    'tdeDatabase.nameTaken': '本域已存在名为 {name} 的数据库客户端',
    'tdeDatabase.notFound': '未找到数据库客户端 {id}',
    'tdeDatabase.keyNotFound': '本域中未找到密钥 {id}',
    'tdeDatabase.keyNotAes256': '密钥 {name} 的算法为 {algorithm}：数据库只能读取 AES-256 密钥',
    'tdeDatabase.keyNotUsable': '密钥 {name} 的状态为 {state}：只能授予正在使用的密钥',
    'tdeDatabase.tooManyKeys': '一个数据库客户端最多可授予 {max} 个密钥',
    'tdeDatabase.grantNotFound': '密钥编号 {db_key_id} 未授予此客户端',
    'tdeDatabase.nothingToChange': '请提供 description、ip_whitelist 或 enabled',
    'dbKey.tokenMissing': '拒绝访问：缺少 X-Vault-Token 请求头（数据库客户端的 KSP 令牌）',
    'dbKey.tokenInvalid': '拒绝访问：该令牌不是 KSP 数据库客户端令牌，或已被吊销或重新生成',
    'dbKey.clientDisabled': '拒绝访问：数据库客户端 {client} 已在 KSP 中停用',
    'dbKey.addressRefused': '拒绝访问：地址 {ip} 不在数据库客户端 {client} 的 IP 白名单中',
    'dbKey.notGranted': '拒绝访问：密钥编号 {db_key_id} 未授予数据库客户端 {client}',
    'dbKey.keyState':
      '拒绝访问：密钥编号 {db_key_id}（KSP 密钥 {name}）的状态为 {state}；KSP 只提供正在使用的密钥',
    'dbKey.versionNotFound': '密钥编号 {db_key_id} 没有版本 {version}',
    'dbKey.badKeyId': '密钥编号必须是 1 到 4294967295 之间的整数',
    'dbKey.badVersion': 'version 必须是 1 到 4294967295 之间的整数',
    'dbKey.unsupported':
      'KSP 只提供 GET {path}/data/<密钥编号>[?version=N] 和 GET {check}；{method} {url} 不在其中',
  },
});
