import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { App, Flex, Space, Tag, Tooltip, Typography } from 'antd';
import { api } from '@ksp/contracts';
import type { ColumnsType } from 'antd/es/table';
import { accessKeys, deleteRoles, fetchPermissionTree, listRoles } from '../../api/access';
import { RowActions, useColumnKit } from '../../components/columns';
import { ListAddButton, ListPage } from '../../components/list-page';
import { useCanCall } from '../../components/permissions';
import { useConfirmDelete } from '../../components/confirm-delete';
import { useT } from '../../i18n/i18n';
import { roleName } from '../../i18n/server-labels';
import { offeredCount, permissionLeaves } from './permission-tree';
import { RoleEditor, type RoleEditorTarget, type RoleRow } from './role-editor';
import { RoleUsersModal } from './role-users-modal';

const builtInDescriptions = {
  Administrator: 'access:role.builtIn.Administrator',
  Operator: 'access:role.builtIn.Operator',
  Auditor: 'access:role.builtIn.Auditor',
} as const;

const MAX_USER_TAGS = 3;

/** Access management › roles: built-in roles to look at, custom ones to shape, and who holds them. */
export default function RolePage() {
  const t = useT();
  const kit = useColumnKit<RoleRow>();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const canWrite = useCanCall(api.role.create);
  const canListUsers = useCanCall(api.user.list);
  const [editor, setEditor] = useState<RoleEditorTarget | null>(null);
  const [usersOf, setUsersOf] = useState<RoleRow | null>(null);
  const tree = useQuery({
    queryKey: accessKeys.permissionTree,
    queryFn: fetchPermissionTree,
    staleTime: Infinity,
  });
  const leaves = tree.data ? permissionLeaves(tree.data) : null;

  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: accessKeys.roles }),
      queryClient.invalidateQueries({ queryKey: accessKeys.users }),
    ]);

  const description = (role: RoleRow) =>
    role.type === 'built-in' && Object.hasOwn(builtInDescriptions, role.name)
      ? t(builtInDescriptions[role.name as keyof typeof builtInDescriptions])
      : role.description;

  const confirmDelete = useConfirmDelete();
  // A role still held by users is refused: the server's message says by how many.
  const remove = (role: RoleRow) =>
    confirmDelete({
      title: t('access:role.deleteConfirm', { name: role.name }),
      remove: () => deleteRoles([role.id]),
      refresh,
    });

  const columns: ColumnsType<RoleRow> = [
    kit.name(t('access:role.fields.name'), 'name', (name: string) => (
      <Typography.Text strong>{roleName(name)}</Typography.Text>
    )),
    {
      title: t('access:role.fields.type'),
      dataIndex: 'type',
      render: (type: RoleRow['type']) => (
        <Flex vertical gap={2} style={{ maxWidth: 260 }}>
          <span>
            <Tag color={type === 'built-in' ? 'blue' : 'green'} data-testid="role-type">
              {type === 'built-in' ? t('access:role.type.builtIn') : t('access:role.type.custom')}
            </Tag>
          </span>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {type === 'built-in'
              ? t('access:role.typeDescription.builtIn')
              : t('access:role.typeDescription.custom')}
          </Typography.Text>
        </Flex>
      ),
    },
    {
      title: t('access:role.fields.description'),
      key: 'description',
      render: (_v, role) => description(role) || '-',
    },
    {
      title: t('access:role.fields.permissionCount'),
      dataIndex: 'permissions',
      align: 'right',
      render: (permissions: string[]) => (
        <Tooltip title={permissions.join(', ')}>
          <span data-testid="role-permission-count">
            {leaves
              ? t('access:role.ofTotal', { count: offeredCount(permissions, leaves), total: leaves.length })
              : permissions.length}
          </span>
        </Tooltip>
      ),
    },
    {
      title: t('access:role.fields.users'),
      dataIndex: 'users',
      render: (users: RoleRow['users']) =>
        users.length === 0 ? (
          '-'
        ) : (
          <Space size={[4, 4]} wrap>
            {users.slice(0, MAX_USER_TAGS).map((user) => (
              <Tag key={user.id}>{user.name}</Tag>
            ))}
            {users.length > MAX_USER_TAGS && (
              <Tooltip
                title={users
                  .slice(MAX_USER_TAGS)
                  .map((user) => user.name)
                  .join(', ')}
              >
                <Tag>+{users.length - MAX_USER_TAGS}</Tag>
              </Tooltip>
            )}
          </Space>
        ),
    },
    kit.time(t('access:common.createdAt'), 'created_at'),
    kit.actions((role) => {
      const editable = role.type === 'custom' && canWrite;
      return (
        <RowActions
          items={[
            {
              label: editable ? t('common:actions.edit') : t('access:common.view'),
              onClick: () => setEditor(editable ? { mode: 'edit', role } : { mode: 'view', role }),
              testId: `role-open-${role.name}`,
            },
            {
              label: t('access:role.users'),
              onClick: () => setUsersOf(role),
              testId: `role-users-${role.name}`,
            },
            {
              label: t('common:actions.delete'),
              onClick: () => remove(role),
              testId: `role-delete-${role.name}`,
              danger: true,
              show: editable,
            },
          ]}
        />
      );
    }),
  ];

  return (
    <>
      <ListPage<RoleRow>
        queryKey={accessKeys.roles}
        fetchPage={({ page, page_size, filters }) => listRoles({ page, page_size, name: filters.name })}
        rowKey="id"
        columns={columns}
        filters={[{ name: 'name', label: t('access:role.fields.name') }]}
        toolbar={
          canWrite && <ListAddButton onClick={() => setEditor({ mode: 'create' })} testId="role-add" />
        }
        onDelete={canWrite ? (ids) => deleteRoles(ids) : undefined}
        canSelect={(role) => role.type === 'custom'}
      />
      <RoleEditor
        target={editor}
        onClose={() => setEditor(null)}
        onSaved={async (role) => {
          void message.success(t('access:role.saved', { name: role.name }));
          await refresh();
        }}
      />
      <RoleUsersModal
        role={usersOf}
        canWrite={canWrite}
        canPick={canListUsers}
        onClose={() => setUsersOf(null)}
        onChanged={refresh}
      />
    </>
  );
}
