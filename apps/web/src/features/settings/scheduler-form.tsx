import { useState } from 'react';
import { Alert, Checkbox, Col, Form, Input, Radio, Row, Select, Switch, Typography } from 'antd';
import {
  ALGORITHM_IDS,
  api,
  intervalToCron,
  KeyRotationQuery,
  SchedulerInterval,
  schedulerPeriods,
  WEEKDAYS,
  type AlgorithmId,
  type BodyOf,
  type SchedulerPeriod,
  type SchedulerTask,
} from '@ksp/contracts';
import { ModalForm } from '../../components/form-modal';
import { limitsAt } from '../../components/schema-limits';
import { WholeNumberField } from '../../components/whole-number-field';
import { useT } from '../../i18n/i18n';

type CreateBody = BodyOf<typeof api.scheduler.create>;

/** The form's values: the interval builder's fields flat, dates as `datetime-local` text (UTC). */
export interface SchedulerFormValues {
  name: string;
  description?: string;
  mode: 'interval' | 'cron';
  period: SchedulerPeriod;
  month?: number;
  day_of_month?: number;
  weekdays?: number[];
  hour: number;
  minute: number;
  cron?: string;
  start?: string;
  end?: string;
  enabled: boolean;
  algorithms?: AlgorithmId[];
  name_pattern?: string;
  labels?: string;
  min_age_days?: number | null;
}

const NAME = limitsAt(api.scheduler.create.body!, ['name']);
const DESCRIPTION = limitsAt(api.scheduler.create.body!, ['description']);
const MIN_AGE = limitsAt(KeyRotationQuery, ['min_age_days']);

/**
 * One number of the interval in the contract's range; optional here, as the period decides which
 * are needed (the compiled cron line under the fields names a missing one).
 */
const intervalField = (name: 'month' | 'day_of_month' | 'hour' | 'minute', label: string, testId: string) => (
  <WholeNumberField
    name={name}
    label={label}
    range={limitsAt(SchedulerInterval, [name])}
    optional
    testId={testId}
  />
);

/** `2026-03-02T03:00` (read as UTC) → RFC 3339; empty → null. */
const toInstant = (text: string | undefined) => (text ? new Date(`${text}:00.000Z`).toISOString() : null);
const fromInstant = (iso: string | null) => (iso ? iso.slice(0, 16) : undefined);

export function intervalOf(values: Partial<SchedulerFormValues>): SchedulerInterval {
  const period = values.period ?? 'week';
  return {
    period,
    hour: values.hour ?? 0,
    minute: values.minute ?? 0,
    ...(period === 'year' && values.month !== undefined ? { month: values.month } : {}),
    ...((period === 'year' || period === 'month') && values.day_of_month !== undefined
      ? { day_of_month: values.day_of_month }
      : {}),
    ...(period === 'week' ? { weekdays: values.weekdays ?? [] } : {}),
  };
}

function labelsOf(text: string | undefined): Record<string, string> | undefined {
  const lines = (text ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length === 0) return undefined;
  return Object.fromEntries(
    lines.map((line) => {
      const at = line.indexOf('=');
      return at < 0 ? [line, ''] : [line.slice(0, at).trim(), line.slice(at + 1).trim()];
    }),
  );
}

/** The create (or update) body of the form's values. */
export function bodyOf(values: SchedulerFormValues): CreateBody {
  const labels = labelsOf(values.labels);
  return {
    name: values.name,
    description: values.description ?? '',
    type: 'key_rotation',
    ...(values.mode === 'cron' ? { cron: values.cron ?? '' } : { interval: intervalOf(values) }),
    start_at: toInstant(values.start),
    end_at: toInstant(values.end),
    enabled: values.enabled,
    query: {
      ...(values.algorithms?.length ? { algorithms: values.algorithms } : {}),
      ...(values.name_pattern?.trim() ? { name_pattern: values.name_pattern.trim() } : {}),
      ...(labels ? { labels } : {}),
      ...(values.min_age_days !== undefined && values.min_age_days !== null
        ? { min_age_days: values.min_age_days }
        : {}),
    },
  };
}

function initialOf(stored: SchedulerTask | undefined): Partial<SchedulerFormValues> {
  if (!stored) return { mode: 'interval', period: 'week', weekdays: [1], hour: 3, minute: 0, enabled: true };
  const i = stored.interval;
  return {
    name: stored.name,
    description: stored.description,
    mode: i ? 'interval' : 'cron',
    period: i?.period ?? 'week',
    month: i?.month,
    day_of_month: i?.day_of_month,
    weekdays: i?.weekdays ?? [1],
    hour: i?.hour ?? 3,
    minute: i?.minute ?? 0,
    cron: stored.cron,
    start: fromInstant(stored.start_at),
    end: fromInstant(stored.end_at),
    enabled: stored.enabled,
    algorithms: stored.query.algorithms ?? [],
    name_pattern: stored.query.name_pattern,
    labels: Object.entries(stored.query.labels ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
    min_age_days: stored.query.min_age_days ?? null,
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export interface SchedulerFormModalProps {
  open: boolean;
  stored?: SchedulerTask;
  onSubmit: (values: SchedulerFormValues) => Promise<unknown>;
  onClose: () => void;
}

/** Adding or editing a task: the run-interval builder shows the cron it makes as it is built. */
export function SchedulerFormModal({ open, stored, onSubmit, onClose }: SchedulerFormModalProps) {
  const t = useT();
  const [form] = Form.useForm<SchedulerFormValues>();
  const [serverError, setServerError] = useState<string | null>(null);
  const initial = initialOf(stored);
  const watched = Form.useWatch([], form) as Partial<SchedulerFormValues> | undefined;
  const values = { ...initial, ...watched };
  const mode = values.mode ?? 'interval';
  const period = values.period ?? 'week';
  const compiled = intervalToCron(intervalOf(values));

  const submit = async (v: SchedulerFormValues) => {
    setServerError(null);
    try {
      await onSubmit(v);
    } catch (error) {
      setServerError(errorText(error));
      throw error;
    }
  };

  return (
    <ModalForm<SchedulerFormValues>
      open={open}
      title={stored ? t('scheduler:edit') : t('scheduler:add')}
      form={form}
      initialValues={initial}
      onSubmit={submit}
      onClose={onClose}
      width={680}
      okTestId="scheduler-form-ok"
      formTestId="scheduler-form"
    >
      {serverError && (
        <Alert
          type="error"
          showIcon
          title={serverError}
          style={{ marginBottom: 12 }}
          data-testid="scheduler-form-error"
        />
      )}
      <Form.Item name="name" label={t('scheduler:fields.name')} rules={[{ required: true, max: NAME.max }]}>
        <Input data-testid="scheduler-name" />
      </Form.Item>
      <Form.Item name="description" label={t('scheduler:fields.description')}>
        <Input maxLength={DESCRIPTION.max} />
      </Form.Item>
      <Form.Item name="mode" label={t('scheduler:fields.mode')}>
        <Radio.Group
          data-testid="scheduler-mode"
          options={[
            { value: 'interval', label: t('scheduler:modes.interval') },
            { value: 'cron', label: t('scheduler:modes.cron') },
          ]}
        />
      </Form.Item>
      {mode === 'interval' ? (
        <>
          <Row gutter={12}>
            <Col span={8}>
              <Form.Item name="period" label={t('scheduler:fields.period')}>
                <Select
                  data-testid="scheduler-period"
                  options={schedulerPeriods.map((p) => ({ value: p, label: t(`scheduler:periods.${p}`) }))}
                />
              </Form.Item>
            </Col>
            {period === 'year' && (
              <Col span={8}>{intervalField('month', t('scheduler:fields.month'), 'scheduler-month')}</Col>
            )}
            {(period === 'year' || period === 'month') && (
              <Col span={8}>
                {intervalField('day_of_month', t('scheduler:fields.dayOfMonth'), 'scheduler-day')}
              </Col>
            )}
          </Row>
          {period === 'week' && (
            <Form.Item name="weekdays" label={t('scheduler:fields.weekdays')}>
              <Checkbox.Group
                data-testid="scheduler-weekdays"
                options={WEEKDAYS.map((d) => ({
                  value: d,
                  label: t(`scheduler:weekdayNames.${String(d) as '0'}`),
                }))}
              />
            </Form.Item>
          )}
          <Row gutter={12}>
            <Col span={8}>{intervalField('hour', t('scheduler:fields.hour'), 'scheduler-hour')}</Col>
            <Col span={8}>{intervalField('minute', t('scheduler:fields.minute'), 'scheduler-minute')}</Col>
          </Row>
          <Typography.Paragraph data-testid="scheduler-compiled-cron">
            {'cron' in compiled ? (
              <Typography.Text code>{t('scheduler:hints.compiled', { cron: compiled.cron })}</Typography.Text>
            ) : (
              <Typography.Text type="warning">
                {t('scheduler:hints.incomplete', { field: t(`scheduler:missing.${compiled.missing}`) })}
              </Typography.Text>
            )}
          </Typography.Paragraph>
        </>
      ) : (
        <Form.Item
          name="cron"
          label={t('scheduler:fields.cron')}
          extra={t('scheduler:hints.cron')}
          rules={[{ required: true }]}
        >
          <Input data-testid="scheduler-cron" style={{ fontFamily: 'monospace' }} />
        </Form.Item>
      )}
      <Row gutter={12}>
        <Col span={12}>
          <Form.Item name="start" label={t('scheduler:fields.start')}>
            <Input type="datetime-local" data-testid="scheduler-start" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name="end" label={t('scheduler:fields.end')}>
            <Input type="datetime-local" data-testid="scheduler-end" />
          </Form.Item>
        </Col>
      </Row>
      <Form.Item name="enabled" label={t('scheduler:fields.enabled')} valuePropName="checked">
        <Switch data-testid="scheduler-enabled" />
      </Form.Item>
      <Typography.Title level={5}>{t('scheduler:fields.query')}</Typography.Title>
      <Typography.Paragraph type="secondary">{t('scheduler:hints.query')}</Typography.Paragraph>
      <Form.Item name="algorithms" label={t('scheduler:fields.algorithms')}>
        <Select mode="multiple" allowClear options={ALGORITHM_IDS.map((a) => ({ value: a, label: a }))} />
      </Form.Item>
      <Row gutter={12}>
        <Col span={12}>
          <Form.Item
            name="name_pattern"
            label={t('scheduler:fields.namePattern')}
            extra={t('scheduler:hints.namePattern')}
          >
            <Input data-testid="scheduler-name-pattern" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <WholeNumberField
            name="min_age_days"
            label={t('scheduler:fields.minAge')}
            range={MIN_AGE}
            optional
            testId="scheduler-min-age"
          />
        </Col>
      </Row>
      <Form.Item name="labels" label={t('scheduler:fields.labels')} extra={t('scheduler:hints.labels')}>
        <Input.TextArea rows={2} />
      </Form.Item>
    </ModalForm>
  );
}
