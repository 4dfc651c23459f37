import { DatePicker, Flex, Select } from 'antd';
import { DATE_TIME_FORMAT } from '../../components/date-time';
import { useT } from '../../i18n/i18n';
import { parseRange, presetOf, rangeValue, timePresets } from './log-filters';

/**
 * The time filter: a rolling period, or "custom range" with a range picker beside it. Its
 * value (in the URL) is the period's name, or the custom range as `<from>/<to>`.
 */
export function TimeFilter({
  value,
  onChange,
  compact,
  testId,
  label,
}: {
  value?: string;
  onChange?: (value: string | undefined) => void;
  compact: boolean;
  testId: string;
  label: string;
}) {
  const t = useT();
  const preset = presetOf(value);
  const range = parseRange(value);
  return (
    <Flex gap={8} wrap style={{ width: compact ? '100%' : undefined }}>
      <Select
        allowClear
        value={preset}
        onChange={(next?: string) => onChange?.(next)}
        options={timePresets.map((name) => ({ value: name, label: t(`log:time.${name}`) }))}
        placeholder={compact ? label : t('common:table.all')}
        style={{ width: compact ? '100%' : 180 }}
        data-testid={testId}
      />
      {preset === 'custom' && (
        <DatePicker.RangePicker
          showTime
          format={DATE_TIME_FORMAT}
          value={range}
          placeholder={[t('log:time.start'), t('log:time.end')]}
          onChange={(dates) => {
            const [from, to] = dates ?? [];
            onChange?.(from && to ? rangeValue(from, to) : 'custom');
          }}
          style={{ width: compact ? '100%' : 380 }}
          data-testid={`${testId}-range`}
        />
      )}
    </Flex>
  );
}
