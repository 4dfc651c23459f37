import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Form, Input, Modal, Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useNavigate } from 'react-router';
import { api, type ProfileRow } from '@ksp/contracts';
import { createProfile, deleteProfile, listProfiles, tdePolicyKeys } from '../../api/tde-policy';
import { ListAddButton, ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { limitsAt } from '../../components/schema-limits';
import { useSubmit } from '../../components/use-submit';
import { useT } from '../../i18n/i18n';
import { profilePaths } from './area';
import { usePolicyListColumns } from './list-columns';

const NAME = limitsAt(api.tdePolicy.profileCreate.body!, ['name']);
const DESCRIPTION = limitsAt(api.tdePolicy.profileCreate.body!, ['description']);

/** TDE › settings › client profiles: the default one first (docs/modules.md#client-profiles). */
export default function ProfileListPage() {
  const t = useT();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const canWrite = useCanCall(api.tdePolicy.profileCreate);
  const submit = useSubmit();
  const [creating, setCreating] = useState(false);
  const [form] = Form.useForm<{ name: string; description?: string }>();
  const col = usePolicyListColumns<ProfileRow>({
    testId: 'profile',
    open: (row) => void navigate(profilePaths.detail(row.name)),
    canDelete: (row) => canWrite && !row.is_default,
    deleteTitle: (row) => t('tdePolicy:profiles.deleteTitle', { name: row.name }),
    remove: (row) => deleteProfile(row.name),
    queryKey: tdePolicyKeys.profiles,
  });

  const columns: ColumnsType<ProfileRow> = [
    col.name((row) => row.is_default && <Tag color="blue">{t('tdePolicy:profiles.default')}</Tag>),
    col.description,
    { title: t('tdePolicy:fields.logThreshold'), render: (_, r) => r.logging.threshold },
    { title: t('tdePolicy:fields.rwpOperation'), render: (_, r) => t(`tdePolicy:rwp.${r.rwp_operation}`) },
    { title: t('tdePolicy:fields.users'), dataIndex: 'users' },
    col.updated,
    col.actions,
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
        canWrite && (
          <ListAddButton
            label={t('tdePolicy:profiles.create')}
            onClick={() => {
              form.resetFields();
              setCreating(true);
            }}
            testId="profile-create"
          />
        )
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
