import type { Alarm } from '@ksp/contracts';
import { useT } from '../../i18n/i18n';
import { splitInterval } from './alarm-values';

/** "5 min", "90 s", "7 d": an interval in its largest whole unit. */
export function useDuration(): (seconds: number) => string {
  const t = useT();
  return (seconds) => {
    const { value, unit } = splitInterval(seconds);
    return t(`alarm:duration.${unit}`, { count: value });
  };
}

/** "3 of 3 in 1 min": what the rule counted when it raised the alarm. */
export function CountedText({ alarm }: { alarm: Pick<Alarm, 'count' | 'threshold' | 'interval_seconds'> }) {
  const t = useT();
  const duration = useDuration();
  return (
    <span data-testid="alarm-counted">
      {t('alarm:counted', {
        count: alarm.count,
        threshold: alarm.threshold,
        interval: duration(alarm.interval_seconds),
      })}
    </span>
  );
}
