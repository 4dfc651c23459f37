import { defineMessages } from './define.js';

/** Alarm rules and alarms (the log page's tabs, the dashboard card). */
export const alarmMessages = defineMessages({
  en: {
    'alarm.notFound': 'No alarm {id}',
    'alarm.ruleNotFound': 'No alarm rule {id}',
    'alarm.ruleNameTaken': 'An alarm rule named {name} exists already',
    'alarm.resultForStream': 'result: {result} does not apply to {stream} records (use {allowed})',
    'alarm.severityForClient': 'min_severity: client records have no server severity; leave it empty',
  },
  zh: {
    'alarm.notFound': '告警 {id} 不存在',
    'alarm.ruleNotFound': '告警规则 {id} 不存在',
    'alarm.ruleNameTaken': '名为 {name} 的告警规则已存在',
    'alarm.resultForStream': 'result：{result} 不适用于{stream}记录（可用：{allowed}）',
    'alarm.severityForClient': 'min_severity：客户端记录没有服务器级别，请留空',
  },
});
