import type { Catalogue } from '../catalogue';
import type { tdeDatabase as en } from '../en/tde-database';

export const tdeDatabase: Catalogue<typeof en> = {
  endpoint: {
    title: '密钥服务端点',
    url: '插件 URL',
    mount: '挂载点',
    certificate: '服务器证书',
    download: '下载 PEM',
    noCertificate: '无：本节点使用明文 HTTP',
    noTls:
      '本节点使用明文 HTTP：数据库的令牌和读取的密钥都将以明文传输。在数据库从 KSP 读取密钥之前，请为 KSP 配置 TLS（KSP_TLS_CERT 和 KSP_TLS_KEY）。',
    hint: 'MariaDB：加载 hashicorp_key_management 插件，将 hashicorp-key-management-vault-url 设为上面的插件 URL，hashicorp-key-management-token 设为下方某个客户端的令牌，并把下载的证书作为其 CA 文件（hashicorp-key-management-vault-ca）。详细步骤见 docs/tde-database.md。',
  },
  fields: {
    name: '名称',
    description: '描述',
    state: '状态',
    token: '令牌',
    tokenIssued: '令牌生成时间',
    keys: '密钥数',
    lastRead: '最近读取',
    lastReadIp: '最近读取地址',
    ipWhitelist: 'IP 白名单',
    created: '创建时间',
  },
  states: {
    enabled: '已启用',
    disabled: '已停用',
  },
  noToken: '无令牌',
  never: '从未',
  anyAddress: '任意地址',
  none: '无',
  actions: {
    details: '详情',
    disable: '停用',
    enable: '启用',
    regenerate: '重新生成令牌',
    revoke: '吊销令牌',
  },
  create: {
    title: '添加数据库客户端',
    ok: '创建',
    nameHint: '字母、数字、空格及 _ . @ -，以字母或数字开头',
    descriptionHint: '数据库的用途、所在位置',
  },
  edit: {
    title: '编辑数据库客户端 {{name}}',
  },
  disable: {
    title: '停用数据库客户端 {{name}}？',
    content: '在重新启用之前，该数据库的每次密钥读取都将被拒绝。',
    done: '数据库客户端 {{name}} 已停用',
  },
  enable: {
    done: '数据库客户端 {{name}} 已启用',
  },
  regenerate: {
    title: '为 {{name}} 重新生成令牌？',
    content: '当前令牌立即失效：在数据库配置新令牌之前，它无法读取密钥。',
    ok: '重新生成',
  },
  revoke: {
    title: '吊销 {{name}} 的令牌？',
    content: '在生成新令牌之前，该数据库的每次密钥读取都将被拒绝。',
    ok: '吊销',
    done: '{{name}} 的令牌已吊销',
  },
  delete: {
    title: '删除数据库客户端 {{name}}？',
    content: '其令牌和授权一并删除，密钥保留。仍在使用它的数据库将无法再读取密钥。此操作无法撤销。',
  },
  token: {
    createdTitle: '数据库客户端 {{name}} 已创建',
    regeneratedTitle: '{{name}} 的新令牌',
    once: '请立即复制令牌：KSP 只保存其哈希值，不会再次显示。',
    use: '数据库通过 X-Vault-Token 请求头发送该令牌：在 MariaDB 中，将 hashicorp-key-management-token 设为该令牌。',
    done: '我已保存',
  },
  detail: {
    title: '数据库客户端 {{name}}',
    grants: '已授权的密钥',
    noGrants: '尚未授权任何密钥：该数据库无法读取任何密钥。',
  },
  grant: {
    dbKeyId: '密钥编号',
    dbKeyIdHint: '数据库请求的 ENCRYPTION_KEY_ID；1 是 MariaDB 的默认密钥',
    dbKeyIdRule: '密钥编号必须是 {{min}} 到 {{max}} 之间的整数',
    key: 'KSP 密钥',
    keyHint: '本域中正在使用的 AES-256 密钥',
    keyRequired: '请选择密钥',
    keyIdLabel: 'KSP 密钥 ID',
    ok: '授权',
    done: '密钥编号 {{id}} 已授权',
    keyName: 'KSP 密钥',
    keyDeleted: '已删除',
    keyState: '密钥状态',
    currentVersion: '当前版本',
    reads: '读取次数',
    lastVersion: '最近读取的版本',
    remove: '移除',
  },
  ungrant: {
    title: '从 {{name}} 移除密钥编号 {{id}}？',
    content:
      '该数据库下次读取密钥编号 {{id}} 时将被拒绝：在重新授权该编号之前，以其加密的数据无法读取。KSP 密钥保留。',
    done: '密钥编号 {{id}} 已移除',
  },
};
