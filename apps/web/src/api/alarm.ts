import { api, type BodyOf, type QueryOf } from '@ksp/contracts';
import { call } from './client';

export const alarmKeys = {
  all: ['alarm'] as const,
  alarms: ['alarm', 'list'] as const,
  rules: ['alarm', 'rules'] as const,
  summary: ['alarm', 'summary'] as const,
};

export const listAlarms = (query: QueryOf<typeof api.alarm.list>) => call(api.alarm.list, { query });
export const acknowledgeAlarms = (ids: string[]) => call(api.alarm.acknowledge, { body: { ids } });
export const fetchAlarmSummary = () => call(api.alarm.summary);

export const listAlarmRules = (query: QueryOf<typeof api.alarm.ruleList>) =>
  call(api.alarm.ruleList, { query });
export const createAlarmRule = (body: BodyOf<typeof api.alarm.ruleCreate>) =>
  call(api.alarm.ruleCreate, { body });
export const updateAlarmRule = (body: BodyOf<typeof api.alarm.ruleUpdate>) =>
  call(api.alarm.ruleUpdate, { body });
export const deleteAlarmRules = (ids: string[]) => call(api.alarm.ruleDelete, { body: { ids } });
