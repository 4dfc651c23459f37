import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Flex, Form, Input, Select, Typography } from 'antd';
import { LDT_QOS, ldtQosSchedules, QosSchedule, weekdays } from '@ksp/contracts';
import { limitsAt } from '../../components/schema-limits';
import { WholeNumberField } from '../../components/whole-number-field';
import { useT } from '../../i18n/i18n';
import { FieldsCard } from './fields-card';
import { NumberField } from './profile-fields';

/** The schedules that take windows of their own. */
export const CUSTOM_SCHEDULES: readonly string[] = ['CUSTOM', 'CUSTOM_WITH_OVERWRITE'];
const TIME_RULE = { pattern: limitsAt(QosSchedule, ['start_time']).pattern, message: 'HH:MM' };

/** The windows of a custom LDT schedule: from a weekday and time to another. */
function QosWindows() {
  const t = useT();
  return (
    <Form.List name={['ldt_qos', 'qos_schedules']}>
      {(fields, { add, remove }) => (
        <Flex vertical gap={4} style={{ marginTop: 8 }}>
          {fields.map((field, i) => (
            <Flex key={field.key} gap={12} wrap align="start" data-testid={`qos-window-${i}`}>
              {(['start', 'end'] as const).map((edge) => (
                <Flex key={edge} gap={12}>
                  <Form.Item
                    name={[field.name, `${edge}_weekday`]}
                    label={t(`tdePolicy:fields.${edge}Weekday`)}
                    rules={[{ required: true }]}
                    style={{ minWidth: 140 }}
                  >
                    <Select
                      data-testid={`qos-${edge}-day-${i}`}
                      options={weekdays.map((d) => ({
                        value: d,
                        label: t(`tdePolicy:weekdays.${d}`),
                      }))}
                    />
                  </Form.Item>
                  <Form.Item
                    name={[field.name, `${edge}_time`]}
                    label={t(`tdePolicy:fields.${edge}Time`)}
                    rules={[{ required: true }, TIME_RULE]}
                  >
                    <Input maxLength={5} style={{ width: 100 }} data-testid={`qos-${edge}-time-${i}`} />
                  </Form.Item>
                </Flex>
              ))}
              <Button
                icon={<DeleteOutlined />}
                aria-label={t('tdePolicy:actions.remove')}
                onClick={() => remove(field.name)}
                style={{ marginTop: 30 }}
              />
            </Flex>
          ))}
          <Button
            icon={<PlusOutlined />}
            data-testid="qos-window-add"
            onClick={() =>
              add({
                start_weekday: 'MONDAY',
                start_time: '22:00',
                end_weekday: 'TUESDAY',
                end_time: '06:00',
              })
            }
            style={{ alignSelf: 'start' }}
          >
            {t('tdePolicy:actions.addWindow')}
          </Button>
        </Flex>
      )}
    </Form.List>
  );
}

/** The profile's LDT quality of service: when LDT may rekey, how fast, and its windows. */
export function ProfileQosCard({ schedule }: { schedule: string | undefined }) {
  const t = useT();
  const { rekey_rate_mbps: rate, cpu_percent: cpu } = LDT_QOS;
  return (
    <FieldsCard
      title={t('tdePolicy:sections.ldtQos')}
      testId="profile-qos"
      below={
        schedule &&
        CUSTOM_SCHEDULES.includes(schedule) && (
          <>
            <Typography.Text strong>{t('tdePolicy:fields.qosWindows')}</Typography.Text>
            <QosWindows />
          </>
        )
      }
    >
      <Form.Item
        name={['ldt_qos', 'ldt_qos_schedule']}
        label={t('tdePolicy:fields.ldtSchedule')}
        style={{ minWidth: 220 }}
      >
        <Select
          data-testid="profile-qos-schedule"
          options={ldtQosSchedules.map((v) => ({ value: v, label: t(`tdePolicy:schedules.${v}`) }))}
        />
      </Form.Item>
      <WholeNumberField
        name={['ldt_qos', 'rekey_rate_mbps']}
        label={t('tdePolicy:fields.rekeyRate')}
        extra={t('tdePolicy:fields.rateHelp')}
        range={rate}
        optional
        style={{ minWidth: 220 }}
        testId="profile-qos-rate"
      />
      <WholeNumberField
        name={['ldt_qos', 'cpu_percent']}
        label={t('tdePolicy:fields.cpuPercent')}
        range={cpu}
        optional
        style={{ minWidth: 160 }}
        testId="profile-qos-cpu"
      />
      <NumberField
        name={['ldt_qos', 'ldt_qos_status_check_rate']}
        label={t('tdePolicy:fields.statusCheckRate')}
        testId="profile-qos-check-rate"
      />
    </FieldsCard>
  );
}
