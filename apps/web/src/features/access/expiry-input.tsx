import { DatePicker, Flex, Radio } from 'antd';
import type { Rule } from 'antd/es/form';
import dayjs, { type Dayjs } from 'dayjs';
import { i18n, useT } from '../../i18n/i18n';
import { DATE_TIME_FORMAT } from '../../components/date-time';

/** A registration token's expiry: "-" (forever) or an ISO date-time. */
export const FOREVER = '-';

export function isForever(value: string | undefined | null): boolean {
  return !value || value === FOREVER;
}

/** Form rule: forever, or a date-time still in the future (`unchanged`, the stored value, passes). */
export function expiryRule(unchanged?: string, now: () => number = Date.now): Rule {
  return {
    validator: (_rule, value: unknown) => {
      if (typeof value !== 'string' || value === FOREVER || value === unchanged) return Promise.resolve();
      const at = Date.parse(value);
      return Number.isFinite(at) && at > now()
        ? Promise.resolve()
        : Promise.reject(new Error(i18n.t('access:token.expiryFuture')));
    },
  };
}

/** Forever, or until a date and time chosen with a picker (value: "-" or ISO 8601). */
export function ExpiryInput({ value, onChange }: { value?: string; onChange?: (value: string) => void }) {
  const t = useT();
  const forever = isForever(value);
  const date: Dayjs | null = forever ? null : dayjs(value);
  const until = (next: Dayjs | null) => onChange?.(next ? next.second(0).millisecond(0).toISOString() : '');
  return (
    <Flex gap={8} wrap align="center">
      <Radio.Group
        value={forever ? 'forever' : 'until'}
        onChange={(event) =>
          event.target.value === 'forever'
            ? onChange?.(FOREVER)
            : until(dayjs().add(30, 'day').startOf('hour'))
        }
        optionType="button"
        options={[
          { value: 'forever', label: t('access:token.forever') },
          { value: 'until', label: t('access:token.until') },
        ]}
        data-testid="token-expiry-mode"
      />
      {!forever && (
        <DatePicker
          showTime={{ format: 'HH:mm' }}
          format="YYYY-MM-DD HH:mm"
          value={date?.isValid() ? date : null}
          onChange={(next) => until(next)}
          disabledDate={(day) => day.isBefore(dayjs().startOf('day'))}
          allowClear={false}
          data-testid="token-expiry-date"
          placeholder={DATE_TIME_FORMAT}
        />
      )}
    </Flex>
  );
}
