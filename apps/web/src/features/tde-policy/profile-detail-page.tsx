import { useEffect } from 'react';
import { ArrowLeftOutlined, DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  App,
  Button,
  Card,
  Flex,
  Form,
  Input,
  InputNumber,
  Select,
  Space,
  Switch,
  Tag,
  Typography,
} from 'antd';
import { useNavigate, useParams } from 'react-router';
import {
  api,
  ldtQosSchedules,
  logThresholds,
  MAX_PROFILE_SYSLOG_SERVERS,
  profileSyslogFormats,
  profileSyslogProtocols,
  weekdays,
  type ProfileRow,
} from '@ksp/contracts';
import { ApiError } from '../../api/api-error';
import {
  deleteProfile,
  fetchProfile,
  listElements,
  tdePolicyKeys,
  updateProfile,
} from '../../api/tde-policy';
import { useConfirmDelete } from '../../components/confirm-delete';
import { recordPlaceholder } from '../../components/not-found';
import { useCanCall } from '../../components/permissions';
import { useSubmit } from '../../components/use-submit';
import { useT } from '../../i18n/i18n';
import { profilePaths } from './area';

type Values = Omit<
  ProfileRow,
  'id' | 'name' | 'is_default' | 'rwp_process_set_name' | 'users' | 'created_at' | 'updated_at'
>;
type ServerValues = Values['syslog_settings']['servers'][number] & { privatekey?: string };

/**
 * The form field a refusal names (`syslog_settings.servers[0].name: …` or `ldt_qos.cpu_percent: …`),
 * as a form name path; undefined when the message names none.
 */
export function fieldOfMessage(msg: string): (string | number)[] | undefined {
  const m = /^([a-z_]+(?:(?:\.[a-z_0-9]+)|(?:\[\d+\]))*)\s*[:：]/i.exec(msg);
  if (!m?.[1]) return undefined;
  return m[1]
    .split(/[.[\]]/)
    .filter(Boolean)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

const CUSTOM_SCHEDULES: readonly string[] = ['CUSTOM', 'CUSTOM_WITH_OVERWRITE'];
const TIME_RULE = { pattern: /^([01]\d|2[0-3]):[0-5]\d$/, message: 'HH:MM' };

/** A number field with the contract's range. */
function NumberField({
  name,
  label,
  min,
  max,
  testId,
}: {
  name: string[];
  label: string;
  min: number;
  max: number;
  testId: string;
}) {
  return (
    <Form.Item
      name={name}
      label={label}
      rules={[{ required: true, type: 'number', min, max }]}
      style={{ minWidth: 200 }}
    >
      <InputNumber min={min} max={max} style={{ width: '100%' }} data-testid={testId} />
    </Form.Item>
  );
}
function SwitchItem({ name, label, testId }: { name: string[]; label: string; testId: string }) {
  return (
    <Form.Item name={name} label={label} valuePropName="checked" style={{ minWidth: 160 }}>
      <Switch data-testid={testId} />
    </Form.Item>
  );
}

/**
 * TDE › settings › client profile details (by name): logging, syslog servers, upload, cache,
 * ransomware protection, LDT QoS.
 */
export default function ProfileDetailPage() {
  const t = useT();
  const { name = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { message } = App.useApp();
  const confirmDelete = useConfirmDelete();
  const submit = useSubmit();
  const canWrite = useCanCall(api.tdePolicy.profileUpdate);
  const [form] = Form.useForm<Values>();
  const detail = useQuery({ queryKey: tdePolicyKeys.profile(name), queryFn: () => fetchProfile(name) });
  const row = detail.data;
  const processSets =
    useQuery({
      queryKey: [...tdePolicyKeys.elements, 'cte', 'process', 'options'],
      queryFn: () => listElements('cte', { kind: 'process', page: 1, page_size: 1000 }),
    }).data?.data ?? [];

  useEffect(() => {
    if (row) form.setFieldsValue(row);
  }, [row, form]);

  const back = () => void navigate(profilePaths.list);
  const watchedServers = Form.useWatch<(string | undefined)[] | undefined>(['syslog_settings', 'servers'], {
    form,
    preserve: true,
  });
  const schedule = Form.useWatch<string | undefined>(['ldt_qos', 'ldt_qos_schedule'], form);
  const save = (v: Values) =>
    submit.run(async () => {
      const servers = ((v.syslog_settings?.servers ?? []) as ServerValues[]).map(
        ({ has_private_key: _stored, privatekey, ...server }) => ({
          ...server,
          cacertificate: server.cacertificate ?? '',
          certificate: server.certificate ?? '',
          // Left empty: the stored key is kept (the server drops it without a certificate).
          ...(privatekey?.trim() ? { privatekey } : {}),
        }),
      );
      const custom = CUSTOM_SCHEDULES.includes(v.ldt_qos.ldt_qos_schedule);
      try {
        const saved = await updateProfile({
          ...v,
          name,
          description: (v.description ?? '').trim(),
          syslog_settings: { ...v.syslog_settings, servers },
          ldt_qos: {
            ...v.ldt_qos,
            qos_schedules: custom ? (v.ldt_qos.qos_schedules ?? []) : [],
            rekey_rate_mbps: v.ldt_qos.rekey_rate_mbps ?? null,
            cpu_percent: v.ldt_qos.cpu_percent ?? null,
          },
        });
        void message.success(t('tdePolicy:profiles.saved', { name: saved.name }));
        await queryClient.invalidateQueries({ queryKey: tdePolicyKeys.profiles });
      } catch (err) {
        // The refusal names its field: show it there too (the message was shown already).
        const field = err instanceof ApiError ? fieldOfMessage(err.message) : undefined;
        if (field && err instanceof Error) form.setFields([{ name: field as never, errors: [err.message] }]);
        throw err;
      }
    });

  const placeholder = recordPlaceholder(detail, {
    title: t('tdePolicy:profiles.notFound'),
    extra: <Button onClick={back}>{t('tdePolicy:profiles.back')}</Button>,
  });
  if (placeholder || !row) return placeholder;

  return (
    <Flex vertical gap={16} data-testid="profile-detail">
      <Flex wrap gap={8} justify="space-between" align="center">
        <Space wrap>
          <Button icon={<ArrowLeftOutlined />} onClick={back} aria-label={t('tdePolicy:profiles.back')} />
          <Typography.Title level={4} style={{ margin: 0 }} data-testid="profile-title">
            {t('tdePolicy:profiles.detailTitle', { name })}
          </Typography.Title>
          {row?.is_default && <Tag color="blue">{t('tdePolicy:profiles.default')}</Tag>}
          {row && (
            <Tag>
              {t('tdePolicy:fields.users')}: {row.users}
            </Tag>
          )}
        </Space>
        {row && canWrite && !row.is_default && (
          <Button
            danger
            data-testid="profile-delete"
            onClick={() =>
              confirmDelete({
                title: t('tdePolicy:profiles.deleteTitle', { name: row.name }),
                remove: async () => {
                  await deleteProfile(row.name);
                  back();
                },
                refresh: () => queryClient.invalidateQueries({ queryKey: tdePolicyKeys.profiles }),
                testId: 'profile-confirm-delete',
              })
            }
          >
            {t('tdePolicy:actions.delete')}
          </Button>
        )}
      </Flex>
      {row && (
        <Form<Values> form={form} layout="vertical" disabled={!canWrite} onFinish={(v) => void save(v)}>
          <Card title={t('tdePolicy:sections.general')} size="small">
            <Form.Item name="description" label={t('tdePolicy:fields.description')}>
              <Input data-testid="profile-description" maxLength={256} />
            </Form.Item>
          </Card>
          <Card title={t('tdePolicy:sections.logging')} size="small" style={{ marginTop: 16 }}>
            <Flex gap={16} wrap>
              <Form.Item
                name={['logging', 'threshold']}
                label={t('tdePolicy:fields.logThreshold')}
                style={{ minWidth: 160 }}
              >
                <Select
                  data-testid="profile-threshold"
                  options={logThresholds.map((v) => ({ value: v, label: v }))}
                />
              </Form.Item>
              <Form.Item
                name={['logging', 'duplicates']}
                label={t('tdePolicy:fields.duplicates')}
                style={{ minWidth: 160 }}
              >
                <Select options={['ALLOW', 'SUPPRESS'].map((v) => ({ value: v, label: v }))} />
              </Form.Item>
              <SwitchItem
                name={['logging', 'file_enabled']}
                label={t('tdePolicy:fields.fileLogging')}
                testId="profile-file-enabled"
              />
              <SwitchItem
                name={['logging', 'syslog_enabled']}
                label={t('tdePolicy:fields.syslogLogging')}
                testId="profile-syslog-enabled"
              />
              <SwitchItem
                name={['logging', 'upload_enabled']}
                label={t('tdePolicy:fields.uploadLogging')}
                testId="profile-upload-enabled"
              />
            </Flex>
          </Card>
          <Card title={t('tdePolicy:sections.files')} size="small" style={{ marginTop: 16 }}>
            <Flex gap={16} wrap>
              <NumberField
                name={['file_settings', 'max_file_size_kb']}
                label={t('tdePolicy:fields.maxFileSize')}
                min={1}
                max={1_048_576}
                testId="profile-max-file-size"
              />
              <NumberField
                name={['file_settings', 'max_old_files']}
                label={t('tdePolicy:fields.maxOldFiles')}
                min={1}
                max={100}
                testId="profile-max-old-files"
              />
              <SwitchItem
                name={['file_settings', 'allow_purge']}
                label={t('tdePolicy:fields.allowPurge')}
                testId="profile-allow-purge"
              />
            </Flex>
          </Card>
          <Card title={t('tdePolicy:sections.upload')} size="small" style={{ marginTop: 16 }}>
            <Flex gap={16} wrap>
              <NumberField
                name={['upload_settings', 'connection_timeout_s']}
                label={t('tdePolicy:fields.connectionTimeout')}
                min={1}
                max={60}
                testId="profile-upload-timeout"
              />
              <NumberField
                name={['upload_settings', 'min_interval_s']}
                label={t('tdePolicy:fields.minInterval')}
                min={1}
                max={86_400}
                testId="profile-min-interval"
              />
              <NumberField
                name={['upload_settings', 'max_interval_s']}
                label={t('tdePolicy:fields.maxInterval')}
                min={1}
                max={86_400}
                testId="profile-max-interval"
              />
              <NumberField
                name={['upload_settings', 'max_messages']}
                label={t('tdePolicy:fields.maxMessages')}
                min={100}
                max={10_000}
                testId="profile-max-messages"
              />
              <SwitchItem
                name={['upload_settings', 'drop_if_busy']}
                label={t('tdePolicy:fields.dropIfBusy')}
                testId="profile-drop-if-busy"
              />
            </Flex>
          </Card>
          <Card title={t('tdePolicy:sections.duplicates')} size="small" style={{ marginTop: 16 }}>
            <Flex gap={16} wrap>
              <NumberField
                name={['duplicate_settings', 'suppress_interval_s']}
                label={t('tdePolicy:fields.suppressInterval')}
                min={1}
                max={1000}
                testId="profile-suppress-interval"
              />
              <NumberField
                name={['duplicate_settings', 'suppress_threshold']}
                label={t('tdePolicy:fields.suppressThreshold')}
                min={1}
                max={100}
                testId="profile-suppress-threshold"
              />
            </Flex>
          </Card>
          <Card title={t('tdePolicy:sections.cache')} size="small" style={{ marginTop: 16 }}>
            <Flex gap={16} wrap>
              <NumberField
                name={['cache_settings', 'max_files']}
                label={t('tdePolicy:fields.cacheFiles')}
                min={200}
                max={10_000_000}
                testId="profile-cache-files"
              />
              <NumberField
                name={['cache_settings', 'max_space_mb']}
                label={t('tdePolicy:fields.cacheSpace')}
                min={100}
                max={1_048_576}
                testId="profile-cache-space"
              />
              <NumberField
                name={['connect_timeout_s']}
                label={t('tdePolicy:fields.connectTimeout')}
                min={5}
                max={150}
                testId="profile-connect-timeout"
              />
            </Flex>
          </Card>
          <Card title={t('tdePolicy:sections.rdm')} size="small" style={{ marginTop: 16 }}>
            <Flex gap={16} wrap>
              <Form.Item
                name="rwp_operation"
                label={t('tdePolicy:fields.rwpOperation')}
                style={{ minWidth: 220 }}
              >
                <Select
                  data-testid="profile-rwp-operation"
                  options={(['permit', 'deny'] as const).map((v) => ({
                    value: v,
                    label: t(`tdePolicy:rwp.${v}`),
                  }))}
                />
              </Form.Item>
              <Form.Item
                name="rwp_process_set_id"
                label={t('tdePolicy:fields.rwpProcessSet')}
                style={{ minWidth: 240 }}
              >
                <Select
                  allowClear
                  data-testid="profile-rwp-set"
                  options={processSets.map((s) => ({ value: s.id, label: s.name }))}
                />
              </Form.Item>
            </Flex>
          </Card>
          <Card
            title={t('tdePolicy:sections.syslog')}
            size="small"
            style={{ marginTop: 16 }}
            data-testid="profile-syslog"
          >
            <Flex gap={16} wrap>
              <SwitchItem
                name={['syslog_settings', 'local']}
                label={t('tdePolicy:fields.syslogLocal')}
                testId="profile-syslog-local"
              />
              <Form.Item
                name={['syslog_settings', 'syslog_threshold']}
                label={t('tdePolicy:fields.syslogThreshold')}
                style={{ minWidth: 160 }}
              >
                <Select
                  data-testid="profile-syslog-threshold"
                  options={logThresholds.map((v) => ({ value: v, label: v }))}
                />
              </Form.Item>
            </Flex>
            <Typography.Text strong>{t('tdePolicy:fields.syslogServers')}</Typography.Text>
            <Form.List name={['syslog_settings', 'servers']}>
              {(fields, { add, remove }) => (
                <Flex vertical gap={8} style={{ marginTop: 8 }}>
                  {fields.length === 0 && (
                    <Typography.Text type="secondary">
                      {t('tdePolicy:fields.noSyslogServers')}
                    </Typography.Text>
                  )}
                  {fields.map((field, i) => {
                    const server = (watchedServers?.[i] ?? {}) as unknown as Partial<ServerValues>;
                    const isTls = server.protocol === 'TLS';
                    return (
                      <Card key={field.key} size="small" data-testid={`syslog-server-${i}`}>
                        <Flex gap={12} wrap align="start">
                          <Form.Item
                            name={[field.name, 'name']}
                            label={t('tdePolicy:fields.serverName')}
                            rules={[{ required: true, max: 253 }]}
                            style={{ minWidth: 220 }}
                          >
                            <Input data-testid={`syslog-name-${i}`} maxLength={253} />
                          </Form.Item>
                          <Form.Item
                            name={[field.name, 'port']}
                            label={t('tdePolicy:fields.port')}
                            rules={[{ required: true, type: 'number', min: 1, max: 65_535 }]}
                          >
                            <InputNumber min={1} max={65_535} data-testid={`syslog-port-${i}`} />
                          </Form.Item>
                          <Form.Item
                            name={[field.name, 'protocol']}
                            label={t('tdePolicy:fields.protocol')}
                            style={{ minWidth: 120 }}
                          >
                            <Select
                              data-testid={`syslog-protocol-${i}`}
                              options={profileSyslogProtocols.map((v) => ({ value: v, label: v }))}
                            />
                          </Form.Item>
                          <Form.Item
                            name={[field.name, 'message_format']}
                            label={t('tdePolicy:fields.messageFormat')}
                            style={{ minWidth: 140 }}
                          >
                            <Select
                              data-testid={`syslog-format-${i}`}
                              options={profileSyslogFormats.map((v) => ({ value: v, label: v }))}
                            />
                          </Form.Item>
                          <Button
                            icon={<DeleteOutlined />}
                            aria-label={t('tdePolicy:actions.remove')}
                            data-testid={`syslog-remove-${i}`}
                            onClick={() => remove(field.name)}
                            style={{ marginTop: 30 }}
                          />
                        </Flex>
                        {isTls && (
                          <Flex gap={12} wrap>
                            <Form.Item
                              name={[field.name, 'cacertificate']}
                              label={t('tdePolicy:fields.caCertificate')}
                              rules={[{ required: true }]}
                              style={{ flex: 1, minWidth: 260 }}
                            >
                              <Input.TextArea rows={4} data-testid={`syslog-ca-${i}`} />
                            </Form.Item>
                            <Form.Item
                              name={[field.name, 'certificate']}
                              label={t('tdePolicy:fields.clientCertificate')}
                              style={{ flex: 1, minWidth: 260 }}
                            >
                              <Input.TextArea rows={4} data-testid={`syslog-cert-${i}`} />
                            </Form.Item>
                            <Form.Item
                              name={[field.name, 'privatekey']}
                              label={t('tdePolicy:fields.privateKey')}
                              style={{ flex: 1, minWidth: 260 }}
                            >
                              <Input.TextArea
                                rows={4}
                                autoComplete="off"
                                data-testid={`syslog-key-${i}`}
                                placeholder={
                                  server.has_private_key ? t('tdePolicy:fields.privateKeyStored') : undefined
                                }
                              />
                            </Form.Item>
                          </Flex>
                        )}
                      </Card>
                    );
                  })}
                  {fields.length < MAX_PROFILE_SYSLOG_SERVERS && (
                    <Button
                      icon={<PlusOutlined />}
                      data-testid="syslog-add"
                      onClick={() =>
                        add({
                          name: '',
                          port: 514,
                          protocol: 'UDP',
                          message_format: 'RFC5424',
                          cacertificate: '',
                          certificate: '',
                          has_private_key: false,
                        })
                      }
                      style={{ alignSelf: 'start' }}
                    >
                      {t('tdePolicy:actions.addServer')}
                    </Button>
                  )}
                </Flex>
              )}
            </Form.List>
          </Card>
          <Card
            title={t('tdePolicy:sections.ldtQos')}
            size="small"
            style={{ marginTop: 16 }}
            data-testid="profile-qos"
          >
            <Flex gap={16} wrap>
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
              <Form.Item
                name={['ldt_qos', 'rekey_rate_mbps']}
                label={t('tdePolicy:fields.rekeyRate')}
                extra={t('tdePolicy:fields.rateHelp')}
                rules={[{ type: 'number', min: 0, max: 32_767 }]}
                style={{ minWidth: 220 }}
              >
                <InputNumber min={0} max={32_767} style={{ width: '100%' }} data-testid="profile-qos-rate" />
              </Form.Item>
              <Form.Item
                name={['ldt_qos', 'cpu_percent']}
                label={t('tdePolicy:fields.cpuPercent')}
                rules={[{ type: 'number', min: 0, max: 100 }]}
                style={{ minWidth: 160 }}
              >
                <InputNumber min={0} max={100} style={{ width: '100%' }} data-testid="profile-qos-cpu" />
              </Form.Item>
              <NumberField
                name={['ldt_qos', 'ldt_qos_status_check_rate']}
                label={t('tdePolicy:fields.statusCheckRate')}
                min={600}
                max={86_400}
                testId="profile-qos-check-rate"
              />
            </Flex>
            {schedule && CUSTOM_SCHEDULES.includes(schedule) && (
              <>
                <Typography.Text strong>{t('tdePolicy:fields.qosWindows')}</Typography.Text>
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
                                <Input
                                  maxLength={5}
                                  style={{ width: 100 }}
                                  data-testid={`qos-${edge}-time-${i}`}
                                />
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
              </>
            )}
          </Card>
          {canWrite && (
            <Flex justify="end" style={{ marginTop: 16 }}>
              <Button type="primary" htmlType="submit" data-testid="profile-save" {...submit.buttonProps}>
                {t('tdePolicy:actions.save')}
              </Button>
            </Flex>
          )}
        </Form>
      )}
    </Flex>
  );
}
