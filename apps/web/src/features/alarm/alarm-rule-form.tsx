import type { ReactNode } from 'react';
import { Col, Form, Input, Radio, Row, Select } from 'antd';
import {
  ALARM_THRESHOLD_MAX,
  alarmSeverities,
  alarmStreams,
  api,
  logSeverities,
  type AlarmRule,
} from '@ksp/contracts';
import { ModalForm } from '../../components/form-modal';
import { fieldSchema, rulesFromSchema } from '../../components/schema-rules';
import { SwitchField } from '../../components/switch-field';
import { WholeNumberInput } from '../../components/whole-number-input';
import { useT } from '../../i18n/i18n';
import {
  actionValid,
  formValuesOf,
  intervalInBounds,
  intervalUnits,
  resultsOf,
  toSeconds,
  type AlarmRuleFormValues,
  type IntervalUnit,
} from './alarm-values';

export interface AlarmRuleFormProps {
  /** The rule being edited; none adds one. */
  stored?: AlarmRule;
  onSubmit: (values: AlarmRuleFormValues) => Promise<unknown>;
  onClose: () => void;
}

/**
 * Adding or editing an alarm rule. The result choices follow the records chosen (server:
 * success/failure; client: permit/deny/audit), the lowest severity is for server records only,
 * and the interval is typed with its unit, checked against 10 seconds … 7 days.
 */
export function AlarmRuleForm({ stored, onSubmit, onClose }: AlarmRuleFormProps) {
  const t = useT();
  const [form] = Form.useForm<AlarmRuleFormValues>();
  const stream = Form.useWatch('stream', form) ?? stored?.stream ?? 'server';
  const name = t('alarm:ruleFields.name');

  return (
    <ModalForm<AlarmRuleFormValues>
      open
      title={stored ? t('alarm:rules.editTitle', { name: stored.name }) : t('alarm:rules.createTitle')}
      form={form}
      initialValues={formValuesOf(stored)}
      width={620}
      onSubmit={onSubmit}
      onClose={onClose}
      okTestId="alarm-rule-save"
      formTestId="alarm-rule-form"
      onValuesChange={(changed) => {
        if (changed.stream) {
          const result = form.getFieldValue('result') as AlarmRuleFormValues['result'];
          if (result && !resultsOf(changed.stream).includes(result)) form.setFieldValue('result', null);
          if (changed.stream === 'client') form.setFieldValue('min_severity', null);
        }
      }}
    >
      <Form.Item
        name="name"
        label={name}
        extra={t('alarm:hints.name')}
        rules={rulesFromSchema(fieldSchema(api.alarm.ruleCreate.body, 'name'), name)}
      >
        <Input maxLength={64} autoComplete="off" data-testid="alarm-rule-name" />
      </Form.Item>
      <Form.Item name="stream" label={t('alarm:ruleFields.stream')}>
        <Radio.Group
          optionType="button"
          buttonStyle="solid"
          data-testid="alarm-rule-stream"
          options={alarmStreams.map((value) => ({ value, label: t(`alarm:streams.${value}`) }))}
        />
      </Form.Item>
      <Form.Item
        name="action"
        label={t('alarm:ruleFields.action')}
        extra={t('alarm:hints.action')}
        rules={[
          {
            validator: (_rule, value: string | undefined) =>
              actionValid(value)
                ? Promise.resolve()
                : Promise.reject(new Error(t('alarm:validation.action'))),
          },
        ]}
      >
        <Input
          maxLength={64}
          autoComplete="off"
          spellCheck={false}
          placeholder={t('alarm:anyAction')}
          data-testid="alarm-rule-action"
        />
      </Form.Item>
      <Row gutter={16}>
        <Col xs={24} sm={12}>
          <Form.Item
            name="result"
            label={t('alarm:ruleFields.result')}
            extra={stream === 'client' ? t('alarm:hints.result') : undefined}
          >
            <Select
              allowClear
              placeholder={t('alarm:any')}
              data-testid="alarm-rule-result"
              options={resultsOf(stream).map((value) => ({ value, label: t(`alarm:results.${value}`) }))}
            />
          </Form.Item>
        </Col>
        <Col xs={24} sm={12}>
          <Form.Item
            name="min_severity"
            label={t('alarm:ruleFields.minSeverity')}
            extra={t('alarm:hints.minSeverity')}
          >
            <Select
              allowClear
              disabled={stream === 'client'}
              placeholder={t('alarm:any')}
              data-testid="alarm-rule-min-severity"
              options={logSeverities.map((value) => ({ value, label: t(`log:severities.${value}`) }))}
            />
          </Form.Item>
        </Col>
      </Row>
      <Row gutter={16}>
        <Col xs={24} sm={8}>
          <Form.Item
            name="threshold"
            label={t('alarm:ruleFields.threshold')}
            rules={[
              {
                required: true,
                type: 'integer',
                min: 1,
                max: ALARM_THRESHOLD_MAX,
                message: t('alarm:validation.threshold'),
              },
            ]}
          >
            <WholeNumberInput data-testid="alarm-rule-threshold" />
          </Form.Item>
        </Col>
        <Col xs={24} sm={16}>
          <Form.Item label={t('alarm:ruleFields.interval')} extra={t('alarm:hints.interval')} required>
            <Flexed>
              <Form.Item
                name="interval_value"
                noStyle
                dependencies={['interval_unit']}
                rules={[
                  ({ getFieldValue }) => ({
                    validator: (_rule, value: number | null) =>
                      typeof value === 'number' &&
                      intervalInBounds(toSeconds(value, getFieldValue('interval_unit') as IntervalUnit))
                        ? Promise.resolve()
                        : Promise.reject(new Error(t('alarm:validation.interval'))),
                  }),
                ]}
              >
                <WholeNumberInput style={{ flex: 1 }} data-testid="alarm-rule-interval" />
              </Form.Item>
              <Form.Item name="interval_unit" noStyle>
                <Select
                  style={{ width: 120 }}
                  data-testid="alarm-rule-interval-unit"
                  options={intervalUnits.map((value) => ({ value, label: t(`alarm:units.${value}`) }))}
                />
              </Form.Item>
            </Flexed>
          </Form.Item>
        </Col>
      </Row>
      <Form.Item name="severity" label={t('alarm:ruleFields.severity')}>
        <Radio.Group
          optionType="button"
          data-testid="alarm-rule-severity"
          options={alarmSeverities.map((value) => ({ value, label: t(`log:severities.${value}`) }))}
        />
      </Form.Item>
      <SwitchField name="enabled" label={t('alarm:ruleFields.enabled')} testId="alarm-rule-enabled" />
    </ModalForm>
  );
}

/** Two controls side by side on one line (the interval and its unit). */
function Flexed({ children }: { children: ReactNode }) {
  return <div style={{ display: 'flex', gap: 8 }}>{children}</div>;
}
