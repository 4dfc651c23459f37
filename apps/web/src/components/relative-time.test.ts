import { describe, expect, it } from 'vitest';
import { i18n } from '../i18n/i18n';
import { formatRelativeTime, formatTimeAgo, relativeTimeParts } from './relative-time';

describe('relative time', () => {
  it('uses minutes under 3600 s, hours under 86400 s, days after', () => {
    expect(relativeTimeParts(59)).toEqual({ value: 0, unit: 'minute' });
    expect(relativeTimeParts(3599)).toEqual({ value: 59, unit: 'minute' });
    expect(relativeTimeParts(3600)).toEqual({ value: 1, unit: 'hour' });
    expect(relativeTimeParts(86399)).toEqual({ value: 23, unit: 'hour' });
    expect(relativeTimeParts(86400)).toEqual({ value: 1, unit: 'day' });
    expect(relativeTimeParts(-5)).toEqual({ value: 0, unit: 'minute' });
  });

  it("pluralises English with an 's'", () => {
    expect(formatRelativeTime(60, 'en')).toBe('1 minute');
    expect(formatRelativeTime(300, 'en')).toBe('5 minutes');
    expect(formatRelativeTime(0, 'en')).toBe('0 minutes');
    expect(formatRelativeTime(3600, 'en')).toBe('1 hour');
    expect(formatRelativeTime(7200, 'en')).toBe('2 hours');
    expect(formatRelativeTime(86400, 'en')).toBe('1 day');
    expect(formatRelativeTime(3 * 86400 + 5, 'en')).toBe('3 days');
  });

  it('has Chinese equivalents', async () => {
    // Chinese loads the first time it is needed (changeLanguage does it; here, by hand).
    await i18n.loadLanguages('zh');
    expect(formatRelativeTime(300, 'zh')).toBe('5 分钟');
    expect(formatRelativeTime(7200, 'zh')).toBe('2 小时');
    expect(formatRelativeTime(3 * 86400, 'zh')).toBe('3 天');
  });

  it('says how long ago a time was', () => {
    const now = Date.parse('2026-01-10T12:00:00Z');
    expect(formatTimeAgo('2026-01-10T09:30:00Z', now, 'en')).toBe('2 hours');
    expect(formatTimeAgo(now - 60_000, now, 'en')).toBe('1 minute');
  });
});
