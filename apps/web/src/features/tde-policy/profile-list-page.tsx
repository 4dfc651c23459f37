import { useState } from 'react';
import { PlusOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Form, Input, Modal, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useNavigate } from 'react-router';
import { api, type ProfileRow } from '@ksp/contracts';
import { createProfile, deleteProfile, listProfiles, tdePolicyKeys } from '../../api/tde-policy';
import { RowActions, useColumnKit } from '../../components/columns';
import { useConfirmDelete } from '../../components/confirm-delete';
import { ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { limitsAt } from '../../components/schema-limits';
import { useSubmit } from '../../components/use-submit';
import { useT } from '../../i18n/i18n';
import { profilePaths } from './area';

const NAME = limitsAt(api.tdePolicy.profileCreate.body!, ['name']);
const DESCRIPTION = limitsAt(api.tdePolicy.profileCreate.body!, ['description']);

/** TDE › settings › client profiles: the default one first (docs/modules.md#client-profiles). */
export default function ProfileListPage() {
  const t = useT();
  const kit = useColumnKit<ProfileRow>();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const confirmDelete = useConfirmDelete();
  const canWrite = useCanCall(api.tdePolicy.profileCreate);
  const submit = useSubmit();
  const [creating, setCreating] = useState(false);
  const [form] = Form.useForm<{ name: string; description?: string }>();
  const open = (row: ProfileRow) => void navigate(profilePaths.detail(row.name));

  const columns: ColumnsType<ProfileRow> = [
    kit.name(t('tdePolicy:fields.name'), 'name', (name: string, row) => (
      <Typography.Link strong onClick={() => open(row)} data-testid={`profile-open-${name}`}>
        {name} {row.is_default && <Tag color="blue">{t('tdePolicy:profiles.default')}</Tag>}
      </Typography.Link>
    )),
    { title: t('tdePolicy:fields.description'), dataIndex: 'description', render: (v: string) => v || '-' },
    { title: t('tdePolicy:fields.logThreshold'), render: (_, r) => r.logging.threshold },
    { title: t('tdePolicy:fields.rwpOperation'), render: (_, r) => t(`tdePolicy:rwp.${r.rwp_operation}`) },
    { title: t('tdePolicy:fields.users'), dataIndex: 'users' },
    kit.time(t('tdePolicy:fields.updated'), 'updated_at'),
    kit.actions((row) => (
      <RowActions
        items={[
          {
            label: t('tdePolicy:actions.details'),
            onClick: () => open(row),
            testId: `profile-details-${row.name}`,
          },
          {
            label: t('tdePolicy:actions.delete'),
            danger: true,
            show: canWrite && !row.is_default,
            testId: `profile-delete-${row.name}`,
            onClick: () =>
              confirmDelete({
                title: t('tdePolicy:profiles.deleteTitle', { name: row.name }),
                remove: () => deleteProfile(row.name),
                refresh: () => queryClient.invalidateQueries({ queryKey: tdePolicyKeys.profiles }),
                testId: 'profile-confirm-delete',
              }),
          },
        ]}
      />
    )),
  ];

  const create = (v: { name: string; description?: string }) =>
    submit.run(async () => {
      const made = await createProfile({ name: v.name.trim(), description: (v.description ?? '').trim() });
      await queryClient.invalidateQueries({ queryKey: tdePolicyKeys.profiles });
      setCreating(false);
      void navigate(profilePaths.detail(made.name));
    });

  return (
    <ListPage<ProfileRow>
      queryKey={tdePolicyKeys.profiles}
      testId="profile"
      title={t('tdePolicy:profiles.title')}
      fetchPage={({ page, page_size, filters }) => listProfiles({ page, page_size, name: filters.name })}
      rowKey="id"
      rowTestId={(row) => `profile-row-${row.name}`}
      columns={columns}
      filters={[{ name: 'name', label: t('tdePolicy:fields.name') }]}
      toolbar={
        canWrite ? (
          <Button
            type="primary"
            icon={<PlusOutlined />}
            data-testid="profile-create"
            onClick={() => {
              form.resetFields();
              setCreating(true);
            }}
          >
            {t('tdePolicy:profiles.create')}
          </Button>
        ) : null
      }
    >
      <Modal
        open={creating}
        title={t('tdePolicy:profiles.create')}
        okText={t('tdePolicy:actions.save')}
        cancelText={t('tdePolicy:actions.cancel')}
        okButtonProps={{ 'data-testid': 'profile-create-ok', ...submit.buttonProps }}
        onCancel={() => setCreating(false)}
        onOk={() => void form.validateFields().then(create)}
      >
        <Form form={form} layout="vertical">
          <Form.Item
            name="name"
            label={t('tdePolicy:fields.name')}
            rules={[{ required: true, whitespace: true, max: NAME.max }]}
          >
            <Input data-testid="profile-name" maxLength={NAME.max} />
          </Form.Item>
          <Form.Item name="description" label={t('tdePolicy:fields.description')}>
            <Input data-testid="profile-description" maxLength={DESCRIPTION.max} />
          </Form.Item>
        </Form>
      </Modal>
    </ListPage>
  );
}
