import type { Catalogue } from '../catalogue';
import type { alarm as en } from '../en/alarm';

export const alarm: Catalogue<typeof en> = {
  list: {
    title: '告警',
    intro: '规则在其时间间隔内统计到阈值数量的记录时触发告警。处理完毕后请确认告警。',
  },
  fields: {
    severity: '级别',
    state: '状态',
    rule: '规则',
    domain: '域',
    raisedAt: '触发时间',
    counted: '统计记录数',
    acknowledged: '确认',
  },
  states: {
    open: '未确认',
    acknowledged: '已确认',
    all: '全部',
  },
  filters: {
    state: '状态',
    severity: '级别',
    time: '触发时间',
  },
  counted: '{{interval}} 内 {{count}} / {{threshold}}',
  acknowledgedBy: '{{name}}，{{time}}',
  acknowledge: '确认',
  acknowledgedDone: '告警已确认',
  rules: {
    title: '告警规则',
    intro:
      '规则统计符合条件的记录；在时间间隔内达到阈值时触发告警，每个间隔最多一次。告警显示在仪表盘上，并发送到订阅告警流的 Syslog 接收端。',
    readOnly: '您可以查看规则；修改需要告警写权限。',
    createTitle: '添加告警规则',
    editTitle: '编辑告警规则 {{name}}',
    deleteConfirm: '删除告警规则 {{name}}？已触发的告警将保留。',
  },
  ruleFields: {
    name: '名称',
    enabled: '启用',
    stream: '记录类型',
    action: '操作',
    result: '结果',
    minSeverity: '统计的最低级别',
    threshold: '阈值（记录数）',
    interval: '时间间隔',
    severity: '告警级别',
    condition: '条件',
    reach: '统计范围',
    lastRaised: '最近触发',
  },
  streams: {
    server: '服务器日志',
    client: '客户端日志',
  },
  results: {
    success: '成功',
    failure: '失败',
    permit: '允许',
    deny: '拒绝',
    audit: '审计',
  },
  reach: {
    all: '所有域',
    own: '本域',
  },
  any: '任意',
  anyAction: '任意操作',
  never: '从未',
  units: {
    seconds: '秒',
    minutes: '分钟',
    hours: '小时',
    days: '天',
  },
  duration: {
    seconds: '{{count}} 秒',
    minutes: '{{count}} 分钟',
    hours: '{{count}} 小时',
    days: '{{count}} 天',
  },
  hints: {
    name: '1–64 个字符：字母、数字、空格、_ . -',
    action: '操作（如 user.login），或以“.”结尾的区域（如 key.）；留空：所有操作',
    result: '客户端日志：代理执行的效果',
    minSeverity: '仅用于服务器日志',
    interval: '10 秒至 7 天',
  },
  validation: {
    action: '请输入操作（如 user.login），或以“.”结尾的区域（如 key.）',
    threshold: '请输入 1 到 10000 之间的整数',
    interval: '时间间隔须在 10 秒到 7 天之间',
  },
  widget: {
    title: '告警',
    none: '没有未确认的告警',
    latest: '最新未确认告警',
    viewAll: '查看告警',
    open: '未确认：{{count}}',
  },
};
