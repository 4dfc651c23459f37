import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { App, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useNavigate } from 'react-router';
import { api, type ClientGroupRow } from '@ksp/contracts';
import {
  clientGroupKeys,
  createClientGroup,
  deleteClientGroup,
  listClientGroups,
} from '../../api/tde-client';
import { RowActions, useColumnKit } from '../../components/columns';
import { useConfirm } from '../../components/confirm-delete';
import { FormModal, type FormField } from '../../components/form-modal';
import { ListAddButton, ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { useT } from '../../i18n/i18n';

/** The detail page of a client group (docs/modules.md#console-routes). */
export const groupDetailPath = (id: string) => `/cte/clients/clients-groups-details/${id}`;

export interface GroupValues {
  name: string;
  description: string;
  profile: string;
}

/** The fields of a group's add and edit dialogs. */
export function useGroupFields(): FormField<GroupValues>[] {
  const t = useT();
  return [
    { name: 'name', label: t('tdeClient:fields.groupName'), testId: 'group-name' },
    {
      name: 'description',
      label: t('tdeClient:fields.description'),
      kind: 'textarea',
      testId: 'group-description',
    },
    {
      name: 'profile',
      label: t('tdeClient:fields.profile'),
      placeholder: t('tdeClient:profile.placeholder'),
      testId: 'group-profile',
    },
  ];
}

export const groupBody = (values: GroupValues) => ({
  name: values.name.trim(),
  description: values.description?.trim() ?? '',
  profile: values.profile?.trim() ? values.profile.trim() : null,
});

/** TDE › client groups (docs/modules.md#client-groups): name, profile, members, guard points. */
export default function GroupListPage() {
  const t = useT();
  const kit = useColumnKit<ClientGroupRow>();
  const navigate = useNavigate();
  const { message } = App.useApp();
  const confirm = useConfirm();
  const queryClient = useQueryClient();
  const canWrite = useCanCall(api.tdeClient.groupCreate);
  const [creating, setCreating] = useState(false);
  const fields = useGroupFields();
  const open = (row: ClientGroupRow) => void navigate(groupDetailPath(row.id));
  const remove = (row: ClientGroupRow) =>
    confirm({
      title: t('tdeClient:group.deleteTitle', { name: row.name }),
      content: t('tdeClient:group.deleteContent'),
      okText: t('common:actions.delete'),
      danger: true,
      testId: 'group-confirm-delete',
      onOk: async () => {
        await deleteClientGroup(row.id);
        void message.success(t('tdeClient:group.deleted', { name: row.name }));
        await queryClient.invalidateQueries({ queryKey: clientGroupKeys.all });
      },
    });

  const columns: ColumnsType<ClientGroupRow> = [
    kit.name(t('tdeClient:fields.groupName'), 'name', (name: string, row) => (
      <Typography.Link strong onClick={() => open(row)} data-testid={`group-open-${name}`}>
        {name}
      </Typography.Link>
    )),
    { title: t('tdeClient:fields.description'), dataIndex: 'description', render: (v: string) => v || '-' },
    {
      title: t('tdeClient:fields.profile'),
      dataIndex: 'profile',
      render: (v: string | null) => v ?? t('kadp:defaultProfile'),
    },
    { title: t('tdeClient:fields.members'), dataIndex: 'members' },
    { title: t('tdeClient:fields.guardPoints'), dataIndex: 'guard_points' },
    kit.time(t('tdeClient:fields.created'), 'created_at'),
    kit.actions((row) => (
      <RowActions
        items={[
          {
            label: t('tdeClient:group.details'),
            onClick: () => open(row),
            testId: `group-details-${row.name}`,
          },
          {
            label: t('common:actions.delete'),
            danger: true,
            show: canWrite,
            onClick: () => remove(row),
            testId: `group-delete-${row.name}`,
          },
        ]}
      />
    )),
  ];

  return (
    <>
      <ListPage<ClientGroupRow>
        queryKey={clientGroupKeys.list}
        testId="group"
        fetchPage={({ page, page_size, filters }) =>
          listClientGroups({ page, page_size, name: filters.name })
        }
        rowKey="id"
        rowTestId={(row) => `group-row-${row.name}`}
        columns={columns}
        filters={[{ name: 'name', label: t('tdeClient:fields.groupName') }]}
        toolbar={canWrite && <ListAddButton onClick={() => setCreating(true)} testId="group-add" />}
      />
      <FormModal<GroupValues>
        open={creating}
        title={t('tdeClient:group.addTitle')}
        okTestId="group-ok"
        schema={api.tdeClient.groupCreate.body}
        fields={fields}
        initialValues={{ name: '', description: '', profile: '' }}
        onSubmit={async (values) => {
          const created = await createClientGroup(groupBody(values));
          void message.success(t('tdeClient:group.saved', { name: created.name }));
          await queryClient.invalidateQueries({ queryKey: clientGroupKeys.all });
        }}
        onClose={() => setCreating(false)}
      />
    </>
  );
}
