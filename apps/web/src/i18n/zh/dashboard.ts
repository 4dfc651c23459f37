import type { Catalogue } from '../catalogue';
import type { dashboard as en } from '../en/dashboard';

export const dashboard: Catalogue<typeof en> = {
  version: '版本',
  node: '节点',
  database: '数据库',
  uptime: '运行时长',
  startedAt: '启动于 {{at}}',
  users: '用户数',
  domains: '域数',
  audit: '审计记录',
  exact: '共 {{value}} 条',
  sessions: '活动会话',
  certificatesExpiring: '30 天内到期的证书',
  certificatesValid: '有效证书 {{count}} 张',
  domain: '当前域：{{domain}}',
  recent: '最近的审计记录',
  columns: {
    at: '时间',
    username: '用户',
    domain: '域',
    action: '操作',
    target: '对象',
    result: '结果',
    source: '来源地址',
  },
  results: {
    success: '成功',
    failure: '失败',
  },
};
