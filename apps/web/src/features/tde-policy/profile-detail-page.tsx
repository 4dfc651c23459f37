import { useQueryClient } from '@tanstack/react-query';
import { Button, Card, Flex, Form, Input, Select, Tag } from 'antd';
import { useNavigate, useParams } from 'react-router';
import { logThresholds } from '@ksp/contracts';
import { deleteProfile, tdePolicyKeys } from '../../api/tde-policy';
import { useConfirmDelete } from '../../components/confirm-delete';
import { recordPlaceholder } from '../../components/not-found';
import { PageHeader } from '../../components/page-header';
import { useT } from '../../i18n/i18n';
import { profilePaths } from './area';
import { FieldsCard } from './fields-card';
import { ProfileNumberCards, SwitchItem } from './profile-fields';
import { ProfileQosCard } from './profile-qos-card';
import { ProfileSyslogCard } from './profile-syslog-card';
import { useProfileForm, type ProfileValues } from './use-profile-form';

/**
 * TDE › settings › client profile details (by name): logging, syslog servers, upload, cache,
 * ransomware protection, LDT QoS.
 */
export default function ProfileDetailPage() {
  const t = useT();
  const { name = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const confirmDelete = useConfirmDelete();
  const { form, detail, row, processSets, servers, schedule, save, submit, canWrite } = useProfileForm(name);
  const back = () => void navigate(profilePaths.list);

  const placeholder = recordPlaceholder(detail, {
    title: t('tdePolicy:profiles.notFound'),
    extra: <Button onClick={back}>{t('tdePolicy:profiles.back')}</Button>,
  });
  if (placeholder || !row) return placeholder;

  return (
    <Flex vertical gap={16} data-testid="profile-detail">
      <PageHeader
        onBack={back}
        backLabel={t('tdePolicy:profiles.back')}
        titleTestId="profile-title"
        title={t('tdePolicy:profiles.detailTitle', { name })}
        tags={
          <>
            {row?.is_default && <Tag color="blue">{t('tdePolicy:profiles.default')}</Tag>}
            {row && (
              <Tag>
                {t('tdePolicy:fields.users')}: {row.users}
              </Tag>
            )}
          </>
        }
        actions={
          row &&
          canWrite &&
          !row.is_default && (
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
          )
        }
      />
      {row && (
        <Form<ProfileValues>
          form={form}
          layout="vertical"
          disabled={!canWrite}
          onFinish={(v) => void save(v)}
        >
          <Card title={t('tdePolicy:sections.general')} size="small">
            <Form.Item name="description" label={t('tdePolicy:fields.description')}>
              <Input data-testid="profile-description" maxLength={256} />
            </Form.Item>
          </Card>
          <FieldsCard title={t('tdePolicy:sections.logging')}>
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
          </FieldsCard>
          <ProfileNumberCards />
          <FieldsCard title={t('tdePolicy:sections.rdm')}>
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
          </FieldsCard>
          <ProfileSyslogCard servers={servers} />
          <ProfileQosCard schedule={schedule} />
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
