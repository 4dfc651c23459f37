import type { Catalogue } from '../catalogue';
import type { remoteAdd as en } from '../en/remote-add';

export const remoteAdd: Catalogue<typeof en> = {
  title: '注册客户端',
  intro: '在主机上运行此命令，将其代理注册到本服务器。令牌仅保留在此浏览器中：本页面不会把它发送到服务器。',
  fields: {
    token: '注册令牌',
    type: '客户端类型',
    name: '客户端名称',
  },
  placeholders: {
    token: '粘贴注册令牌（ksprt_…）',
    name: '默认为主机名',
  },
  types: { tde: 'TDE（透明加密）', rdm: 'RDM（防勒索）', kadp: 'KADP（应用）' },
  rules: {
    token: '注册令牌只包含字母、数字以及“_”或“-”（与创建时显示的一致）。',
    name: '客户端名称为 1 到 64 个字母、数字、“.”、“_”或“-”。',
  },
  linux: 'Linux',
  windows: 'Windows（PowerShell）',
  needToken: '输入注册令牌以查看命令。',
  fingerprint: '服务器 CA 指纹（SHA-256）',
  fingerprintHelp: '信任服务器之前，请确认代理报告的服务器指纹与此一致。',
  noTls: '本服务器未使用 TLS（仅监听本地地址）：没有可核对的 CA 指纹。',
  toLogin: '登录',
};
