import { i18n } from '../i18n/i18n';
import type { Language } from '../i18n/language';

export type TimeUnit = 'minute' | 'hour' | 'day';

/** Under 3600 s → minutes, under 86400 s → hours, otherwise days (whole units, rounded down). */
export function relativeTimeParts(seconds: number): { value: number; unit: TimeUnit } {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 3600) return { value: Math.floor(s / 60), unit: 'minute' };
  if (s < 86400) return { value: Math.floor(s / 3600), unit: 'hour' };
  return { value: Math.floor(s / 86400), unit: 'day' };
}

const singular = { minute: 'common:time.minute', hour: 'common:time.hour', day: 'common:time.day' } as const;
const plural = { minute: 'common:time.minutes', hour: 'common:time.hours', day: 'common:time.days' } as const;

/** "1 minute", "5 minutes", "2 hours", "3 days" (plural with an 's'); "5 分钟" in Chinese. */
export function formatRelativeTime(seconds: number, language?: Language): string {
  const { value, unit } = relativeTimeParts(seconds);
  const key = value === 1 ? singular[unit] : plural[unit];
  return i18n.t(key, { n: value, lng: language ?? i18n.language });
}

/** How long ago `time` was, e.g. "3 hours". */
export function formatTimeAgo(time: string | number | Date, now = Date.now(), language?: Language): string {
  const then = new Date(time).getTime();
  return formatRelativeTime((now - then) / 1000, language);
}
