import { useEffect } from 'react';
import { ArrowLeftOutlined } from '@ant-design/icons';
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
import { api, logThresholds, type ProfileRow } from '@ksp/contracts';
import {
  deleteProfile,
  fetchProfile,
  listElements,
  tdePolicyKeys,
  updateProfile,
} from '../../api/tde-policy';
import { useConfirmDelete } from '../../components/confirm-delete';
import { useCanCall } from '../../components/permissions';
import { useSubmit } from '../../components/use-submit';
import { useT } from '../../i18n/i18n';
import { profilePaths } from './area';

type Values = Omit<
  ProfileRow,
  'id' | 'name' | 'is_default' | 'rwp_process_set_name' | 'users' | 'created_at' | 'updated_at'
>;

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

/** TDE › settings › client profile details (by name): logging, upload, cache, ransomware protection. */
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
  const save = (v: Values) =>
    submit.run(async () => {
      const saved = await updateProfile({ ...v, name, description: (v.description ?? '').trim() });
      void message.success(t('tdePolicy:profiles.saved', { name: saved.name }));
      await queryClient.invalidateQueries({ queryKey: tdePolicyKeys.profiles });
    });

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
