import {
  ALARM_ACTION_PATTERN,
  ALARM_INTERVAL_MAX,
  ALARM_INTERVAL_MIN,
  alarmResults,
  type AlarmRule,
  type AlarmRuleResult,
  type AlarmSeverity,
  type AlarmStream,
  type api,
  type BodyOf,
  type LogSeverity,
} from '@ksp/contracts';

export const intervalUnits = ['seconds', 'minutes', 'hours', 'days'] as const;
export type IntervalUnit = (typeof intervalUnits)[number];
const unitSeconds: Record<IntervalUnit, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 };

/** Seconds as the largest unit that divides them (600 → 10 minutes, 90 → 90 seconds). */
export function splitInterval(seconds: number): { value: number; unit: IntervalUnit } {
  for (const unit of [...intervalUnits].reverse())
    if (seconds % unitSeconds[unit] === 0) return { value: seconds / unitSeconds[unit], unit };
  return { value: seconds, unit: 'seconds' };
}

export const toSeconds = (value: number, unit: IntervalUnit) => value * unitSeconds[unit];

export const intervalInBounds = (seconds: number) =>
  Number.isInteger(seconds) && seconds >= ALARM_INTERVAL_MIN && seconds <= ALARM_INTERVAL_MAX;

/** What the action field accepts: empty (every action), an action, or an area ending with ".". */
export const actionValid = (action: string | undefined) =>
  !action?.trim() || ALARM_ACTION_PATTERN.test(action.trim());

/** The results a rule of this stream may ask for. */
export const resultsOf = (stream: AlarmStream): readonly AlarmRuleResult[] => alarmResults[stream];

export interface AlarmRuleFormValues {
  name: string;
  enabled: boolean;
  stream: AlarmStream;
  action?: string;
  result?: AlarmRuleResult | null;
  min_severity?: LogSeverity | null;
  threshold: number;
  interval_value: number;
  interval_unit: IntervalUnit;
  severity: AlarmSeverity;
}

export function formValuesOf(rule?: AlarmRule): AlarmRuleFormValues {
  if (!rule)
    return {
      name: '',
      enabled: true,
      stream: 'server',
      action: '',
      result: null,
      min_severity: null,
      threshold: 5,
      interval_value: 5,
      interval_unit: 'minutes',
      severity: 'WARNING',
    };
  const { value, unit } = splitInterval(rule.interval_seconds);
  return {
    name: rule.name,
    enabled: rule.enabled,
    stream: rule.stream,
    action: rule.action ?? '',
    result: rule.result,
    min_severity: rule.min_severity,
    threshold: rule.threshold,
    interval_value: value,
    interval_unit: unit,
    severity: rule.severity,
  };
}

/** The form's values as the create call's body: empty conditions left out, severity only for server rules. */
export function createBody(values: AlarmRuleFormValues): BodyOf<typeof api.alarm.ruleCreate> {
  const action = values.action?.trim();
  return {
    name: values.name.trim(),
    enabled: values.enabled,
    stream: values.stream,
    ...(action ? { action } : {}),
    ...(values.result && resultsOf(values.stream).includes(values.result) ? { result: values.result } : {}),
    ...(values.stream === 'server' && values.min_severity ? { min_severity: values.min_severity } : {}),
    threshold: values.threshold,
    interval_seconds: toSeconds(values.interval_value, values.interval_unit),
    severity: values.severity,
  };
}

/** The update body: every field, empty conditions cleared with null. */
export function updateBody(id: string, values: AlarmRuleFormValues): BodyOf<typeof api.alarm.ruleUpdate> {
  const body = createBody(values);
  return {
    ...body,
    id,
    action: body.action ?? null,
    result: body.result ?? null,
    min_severity: body.min_severity ?? null,
  };
}
